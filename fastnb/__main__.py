"""``python -m fastnb``: a worked example per model, and a speed check."""

import sys

from . import _demos, _text_demo, show_config


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    config = show_config()
    print(f"fastnb {config['version']}: OpenMP {'on' if config['openmp'] else 'off'}, "
          f"{config['threads']} threads, {config['simd']} kernels")
    print("Worked examples, one per kind of data, each with the answer its source "
          "published or a hand count gives;\nthen a speed check against "
          "scikit-learn (--no-speed leaves it out).\n")
    for demo in (_demos.iris_all_features_demo, _demos.iris_two_features_demo,
                 _demos.categorical_seed_demo, _demos.bernoulli_seed_demo,
                 _demos.mixed_columns_demo, _text_demo.text_demo):
        print(demo(), end="\n\n")
    if "--no-speed" not in args:
        print(_demos.speed_demo())
    return 0


if __name__ == "__main__":
    sys.exit(main())
