"""Files in and out: atomic writes and checked reads (``files``), job and outcome tables (``jobtable``), and
the limits a computation checks before it starts (``limits``: memory, the largest time in a table)."""
