"""From stored results to answers: solved games and their flags (``study``), the paper's claims
(``claims``), and shading gains against market size (``incentives``).

Nothing is imported here, so that ``studies`` can be imported without the analysis and the analysis
modules can import ``studies``."""
