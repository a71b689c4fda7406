"""The plain reference of market model sections 4-5 now lives in the package (``gamemarket.testing.reference``),
where the conformance checks use it; this name stays for tests that import it from here."""

from gamemarket.testing.reference import key_fn, reference_run  # noqa: F401
