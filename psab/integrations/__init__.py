"""Bridges to other evaluation harnesses: ``inspect`` (UK AISI's inspect-ai) and ``harbor``
(Harbor task directories). Each needs its optional extra and is imported only when used."""
