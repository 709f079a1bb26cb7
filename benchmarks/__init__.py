"""hitbox benchmarks: `python -m benchmarks.run [names] [--quick]`."""
