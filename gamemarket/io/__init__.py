"""Files in and out: atomic writes and checked reads (``files``), job and outcome tables (``jobtable``)."""
