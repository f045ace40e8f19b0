"""The held-out kernel: seeded streams per (seed, family, index) and the acceptance loop."""

from psab.generators.acceptance import Draw, default_neighbourhood, generate, heldout_task_id
from psab.generators.rng import family_rng, seed_int

__all__ = ["Draw", "default_neighbourhood", "family_rng", "generate", "heldout_task_id", "seed_int"]
