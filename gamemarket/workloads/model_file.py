"""The workload model file's schema: its tables and fields, declared (``gamemarket.io.schema``).

``WorkloadModel.from_dict`` checks a model file against :class:`ModelFile` (types, ranges, unknown and
missing fields, each named with its table), then builds the model, whose own checks add the rules
between values (quantiles that do not decrease, shares that sum to 1). The ranges keep every draw of
the generator finite: run times below 2^53 seconds, gaps and sizes below 10^9.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from gamemarket.io.schema import Table

#: the file format's name and version (the first field of every model file)
FORMAT = "gamemarket-workload-model/1"
#: ``log(run time)`` below this keeps every run time below 2^53 s (exp(36) is about 4.3e15)
MAX_LOG_RUNTIME = 36.0
Quantiles = Annotated[list[Annotated[float, Field(ge=0, le=1e9)]], Field(min_length=2, max_length=10_000)]
Share = Annotated[float, Field(ge=0, lt=1)]


class Defaults(Table):
    """The model's own size and load (a draw may ask for others)."""

    jobs: int = Field(ge=1, le=10**9, description="jobs of the fitted trace")
    nodes: int = Field(ge=1, le=10**7, description="nodes of the fitted trace")
    load: float = Field(ge=1e-6, le=1e6, description="offered load of the fitted trace")


class Campaigns(Table):
    """Users' campaigns: their sizes, the gaps within them, the users' shares and run-time effects."""

    threshold: float = Field(gt=0, le=1e7, description="seconds of silence that end a campaign")
    size_quantiles: Quantiles = Field(description="jobs per campaign at the probability grid")
    gap_quantiles: Quantiles = Field(description="seconds between a campaign's submissions")
    user_shares: list[Annotated[float, Field(gt=0, le=1)]] = Field(min_length=1, max_length=10**6)
    user_effects: list[Annotated[float, Field(ge=-100, le=100)]] = Field(min_length=1, max_length=10**6)


class Runtime(Table):
    """Run times: log quantiles at the normal-score grid, and the shares of their latent variance."""

    log_quantiles: list[Annotated[float, Field(ge=0, le=MAX_LOG_RUNTIME)]] = Field(min_length=2, max_length=10_000)
    user_share: Share = Field(description="share of the latent variance between users")
    campaign_share: Share = Field(description="share between campaigns of one user")


class Arrivals(Table):
    """When campaigns start: the week's cycle, the gaps between starts, idle periods."""

    hour_of_week: list[Annotated[float, Field(ge=0, le=1e6)]] = Field(description="168 rates, one per hour")

    @field_validator("hour_of_week")
    @classmethod
    def _one_per_hour(cls, v):
        # (hunt 23b-W5: "expected at least 168 item(s)" for 5, "at most 168" for 170, where exactly 168 are)
        if len(v) != 168:
            raise ValueError(f"expected exactly 168 rates (one per hour of the week), got {len(v)}")
        return v

    start_gap_quantiles: Quantiles = Field(description="operational seconds between campaign starts")
    long_gap_share: Share = Field(description="idle periods (a day or more) per campaign")
    long_gap_quantiles: Quantiles = Field(description="their lengths, operational seconds")


class Estimates(Table):
    """Users' run-time estimates, as log(estimate / run time) quantiles."""

    log_ratio_quantiles: Quantiles = Field(description="log(estimate / run time) at the probability grid")


class ModelFile(Table):
    """A workload model file (``gamemarket workload fit`` writes one)."""

    format: Literal[FORMAT] = Field(description="the file format's name and version")
    source: str = Field("", description="the trace it was fitted to")
    defaults: Defaults
    campaigns: Campaigns
    runtime: Runtime
    arrivals: Arrivals
    estimates: Estimates
