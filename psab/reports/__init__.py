"""Reports and quality control over run directories (``psab report``, ``psab qc``, ``psab regrade``).

- :mod:`psab.reports.report` — Markdown + HTML report with PNG plots comparing agents;
- :mod:`psab.reports.qc` — the unanimous-failure rule (paper, section 8.2), beaten references,
  the evaluator's sensitivity to realistic mistakes;
- :mod:`psab.reports.regrade` — re-scoring stored solutions under the current evaluators;
- :mod:`psab.reports.stats` — percentile bootstrap intervals and paired differences.

Nothing here is imported by ``import psab``; matplotlib is imported only to draw plots.
"""
