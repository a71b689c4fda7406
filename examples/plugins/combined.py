"""Provider strategies combining entries: a scheduler and a payment scheme, each built-in or a plugin's.

A provider strategy is what a study's ``[strategies] providers`` names (``hb-first`` is Highest-Bid with the
first price, r = 1). ``register_provider`` declares one from registered entries, so bimatrix and population
studies name it as they name the built-in ones. Load the plugins that register its entries first::

    [plugins]
    modules = ["lowest_running.py", "bid_per_node_second.py", "combined.py"]

    gamemarket plugin check examples/plugins/combined.py \
        --plugin examples/plugins/lowest_running.py --plugin examples/plugins/bid_per_node_second.py
"""

from gamemarket.plugins import register_provider

# both entries from the example plugins: the highest bid per estimated node-second first, each running job
# paying the lowest running bid while every node is busy
register_provider(
    "pns-lowest",
    "bid-per-node-second",
    "lowest-running",
    description="bid per estimated node-second first, the lowest running bid when full (both example plugins)",
)
# a built-in scheduler with a plugin's payment rule
register_provider("hb-lowest", "hb", "lowest-running", description="Highest-Bid, the lowest running bid when full")
