"""The text helpers of ``sklearn.feature_extraction.text`` (accent and tag
stripping, stop lists) and the pieces of the Python analysis (the slow path
that the vectorizers fall back on for what the kernels cannot run)."""

import re
import unicodedata

from .._stop_words import ENGLISH_STOP_WORDS

# -- the text helpers of sklearn.feature_extraction.text -----------------------------

def strip_accents_unicode(s):
    """Remove accents: NFKD-normalise, then drop the combining characters.

    Parameters
    ----------
    s : str

    Returns
    -------
    s : str

    Examples
    --------
    >>> from fastnb.text import strip_accents_unicode
    >>> strip_accents_unicode("Crème brûlée")
    'Creme brulee'
    """
    if s.isascii():
        return s
    normalized = unicodedata.normalize("NFKD", s)
    return "".join([c for c in normalized if not unicodedata.combining(c)])


def strip_accents_ascii(s):
    """NFKD-normalise and keep the ASCII characters only.

    Parameters
    ----------
    s : str

    Returns
    -------
    s : str

    Examples
    --------
    >>> from fastnb.text import strip_accents_ascii
    >>> strip_accents_ascii("Crème brûlée à 10€")
    'Creme brulee a 10'
    """
    return unicodedata.normalize("NFKD", s).encode("ASCII", "ignore").decode("ASCII")


_TAG = re.compile(r"<([^>]+)>", flags=re.UNICODE)


def strip_tags(s):
    """Replace every ``<...>`` tag by a space (a basic HTML/XML tag stripper).

    Parameters
    ----------
    s : str

    Returns
    -------
    s : str

    Examples
    --------
    >>> from fastnb.text import strip_tags
    >>> strip_tags("<p>Hello <b>world</b></p>")
    ' Hello  world  '
    """
    return _TAG.sub(" ", s)


def _preprocess(doc, accent_function=None, lower=False):
    if lower:
        doc = doc.lower()
    if accent_function is not None:
        doc = accent_function(doc)
    return doc


def _analyze(doc, analyzer=None, tokenizer=None, ngrams=None, preprocessor=None,
             decoder=None, stop_words=None):
    if decoder is not None:
        doc = decoder(doc)
    if analyzer is not None:
        return analyzer(doc)
    if preprocessor is not None:
        doc = preprocessor(doc)
    if tokenizer is not None:
        doc = tokenizer(doc)
    if ngrams is not None:
        doc = ngrams(doc, stop_words) if stop_words is not None else ngrams(doc)
    return doc


def _check_stop_list(stop):
    if stop == "english":
        return ENGLISH_STOP_WORDS
    if isinstance(stop, str):
        raise ValueError(f"not a built-in stop list: {stop}")
    if stop is None:
        return None
    return frozenset(stop)




def _lowered(doc):
    return doc.lower()


def _nfkd_unless_ascii(doc, lower):
    if lower:
        doc = doc.lower()
    return doc if doc.isascii() else unicodedata.normalize("NFKD", doc)

