"""Demo data seeders, one module per app, run in order by `manage.py seed_demo`.

`sst.seed()` creates the demo tenant (and an isolated second tenant) and returns the demo tenant;
the seeders after it take `(*, tenant, stdout)`.
"""
