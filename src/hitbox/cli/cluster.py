"""The Dask options of the batched subcommands (points, raycast): --scheduler and
--workers, the client, and a progress bar of the chunks. Dask is imported only when used."""

from hitbox.cli import common


def _cluster_options(parser):
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on the Dask cluster at ADDRESS (e.g. tcp://host:8786); needs "
        "pip install hitbox[dask]",
    )
    group.add_argument(
        "--workers",
        type=common.count1,
        metavar="N",
        help="run on a local Dask cluster of N worker processes",
    )


def _cluster(args):
    """A distributed Client for --scheduler or --workers; Dask is imported only here."""
    try:
        from distributed import Client

        from hitbox import dask as hd
    except ImportError as exc:
        raise common.Failure(f"{exc}") from None
    if args.workers is not None:
        return hd.local_cluster(args.workers)
    try:
        return Client(args.scheduler, timeout="10s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise common.Failure(
            f"cannot reach a Dask scheduler at {args.scheduler}: {exc}"
        ) from None


def _on_cluster(args, client, arrays, label):
    """Compute dask arrays on ``client``, a bar of the chunks done on stderr."""
    import dask
    from distributed import as_completed, futures_of

    persisted = client.persist(list(arrays))
    futures = futures_of(persisted)
    with common.progress(args, len(futures) + 1) as step:
        step(f"{label} on the cluster: {len(futures)} tasks")
        for done, _ in enumerate(as_completed(futures), 1):
            step(f"{label} on the cluster: {done}/{len(futures)} tasks")
        return dask.compute(*persisted, scheduler=client)
