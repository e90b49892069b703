"""A fit of a model that forgets, given the column that orders the rows.

Under ``half_life`` a row's weight is ``2**(-age / half_life)``, its age the
number of rows after it in one order. Spark sorts the rows by ``orderCol`` into
ranges, one a partition, and keeps them (persisted) for two jobs: the first
counts each partition's rows, so that the driver knows how many rows follow
each partition; the second fits each partition's batches with the model's own
forgetting and sample weights that age them by the rows after them
(``fastnb._distributed.stream_weights``). The merged model is the local fit of
the rows in that order, to rounding, with its forgetting clock where the local
fit's is: a later ``partial_fit`` goes on as it would.
"""

ORDER = "__fastnb_order"


def check_order_column(schema, name):
    """orderCol names a column of a type Spark sorts (numbers, strings, dates)."""
    from pyspark.sql import types

    if not isinstance(name, str) or name not in schema.names:
        raise ValueError(f"orderCol={name!r} is not a column of the DataFrame; its "
                         f"columns are {schema.names}.")
    data_type = schema[name].dataType
    if not isinstance(data_type, (types.NumericType, types.StringType, types.DateType,
                                  types.TimestampType, types.TimestampNTZType)):
        raise TypeError(f"orderCol {name!r} is {data_type.simpleString()}: it must be "
                        "a number, a string, a date or a timestamp.")


def sorted_frame(frame):
    """``frame``'s rows in ranges of ORDER, one a partition, each sorted, and
    persisted: both jobs must see the same partitions."""
    return frame.repartitionByRange(ORDER).sortWithinPartitions(ORDER).persist()


def _count_task(batches):
    """mapInArrow: this partition's id, rows, and null order values."""
    import pyarrow as pa
    from pyspark import TaskContext

    rows = nulls = 0
    for batch in batches:
        rows += batch.num_rows
        nulls += batch.column(ORDER).null_count
    yield pa.RecordBatch.from_pydict(
        {"partition": [TaskContext.get().partitionId()], "n": [rows], "nulls": [nulls]},
        schema=pa.schema([("partition", pa.int32()), ("n", pa.int64()),
                          ("nulls", pa.int64())]))


def positions(frame, order_name):
    """{partition: (its rows, the rows of the partitions after it)}."""
    counts = frame.mapInArrow(_count_task, "partition int, n long, nulls long").collect()
    if any(row.nulls for row in counts):
        raise ValueError(f"orderCol {order_name!r} holds nulls: every row needs its "
                         "place in the order.")
    sizes = {row.partition: int(row.n) for row in counts}
    after, result = 0, {}
    for partition in sorted(sizes, reverse=True):
        result[partition] = (sizes[partition], after)
        after += sizes[partition]
    return result


def start(stream):
    """In a task: (half_life, this partition's rows plus the rows after it,
    the rows after it), or None for an unordered fit."""
    if stream is None:
        return None
    from pyspark import TaskContext

    half_life, places = stream
    rows, after = places.get(TaskContext.get().partitionId(), (0, 0))
    return half_life, rows + after, after


def check_end(stream, remaining):
    """The task saw the rows the count job counted (the persisted partitions)."""
    if stream is not None and remaining != stream[2]:
        raise ValueError("A partition's rows changed between the count and the fit "
                         "(its persisted rows were lost): fit again.")

