"""The held-out kernel: seeded streams per (seed, family, index), the acceptance loop,
seed commitments and manifests, parallel drawing and generator validation."""

from psab.generators.acceptance import (
    Draw,
    default_neighbourhood,
    generate,
    heldout_task_id,
    instance_digest,
    transfers,
    trivial_answer,
)
from psab.generators.rng import family_rng, seed_int

__all__ = [
    "Draw",
    "default_neighbourhood",
    "family_rng",
    "generate",
    "heldout_task_id",
    "instance_digest",
    "seed_int",
    "transfers",
    "trivial_answer",
]
