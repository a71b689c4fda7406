"""Estimate the campaign model's parameters from a trace (:mod:`gamemarket.workloads.model`).

Campaigns are found per user: a user's consecutive submissions belong to one campaign while the
gap between them is at most ``threshold`` seconds (20 minutes by default, the think-time
threshold Zakay and Feitelson (2013) use to cut user sessions). Everything kept is a quantile, a
share or a rate: the model file never holds a record of the trace.

The latent correlations are estimated on normal scores of log run time (average ranks for
ties): the user share is the variance of the users' mean scores; the campaign share is the
correlation of consecutive jobs of one campaign less the user share.
"""

from __future__ import annotations

import re
import tomllib

import numpy as np
from scipy.special import ndtri
from scipy.stats import rankdata

from gamemarket.errors import InputError
from gamemarket.io.files import shown_path
from gamemarket.workloads.base import Workload
from gamemarket.workloads.model import HOUR, P_GRID, WEEK, WorkloadModel, z_probabilities

MIN_JOBS = 1000


def _cumulative_rate(t: np.ndarray, rate: np.ndarray) -> np.ndarray:
    """Operational time of wall-clock seconds ``t``: the integral of the hour-of-week rate (mean 1)."""
    cum = np.concatenate([[0.0], np.cumsum(rate) * HOUR])
    weeks = np.floor(t / WEEK)
    r = t - weeks * WEEK
    h = np.minimum((r // HOUR).astype(np.int64), 167)
    return weeks * WEEK + cum[h] + rate[h] * (r - h * HOUR)


MIN_USERS = 2
#: Gaps of a day or more between submissions (operational time) are idle periods, drawn apart.
LONG_GAP = 86400.0


def fit_model(
    workload: Workload, *, nodes: int | None = None, threshold: float = 1200.0, source: str = ""
) -> WorkloadModel:
    """Fit the campaign model to a workload's job table.

    Parameters
    ----------
    workload : Workload
        A trace (``submit``, ``runtime``, ``estimate``, ``user`` columns).
    nodes : int, keyword-only
        The node count the model's default load refers to (default: the workload's own).
    threshold : float, keyword-only
        Seconds of silence that end a user's campaign.
    source : str, keyword-only
        The trace's name, kept in the model file.
    """
    j = workload.jobs
    where = f"workload fit{f' ({shown_path(source)})' if source else ''}"
    if len(j) < MIN_JOBS:
        raise InputError(f"{where}: the trace has {len(j)} jobs; fitting needs at least {MIN_JOBS}")
    if "user" not in j.columns:
        raise InputError(f"{where}: the job table has no 'user' column (SWF field 12); campaigns are per user")
    if not (threshold > 0):
        raise InputError(f"{where}: threshold must be > 0 seconds, got {threshold!r}")
    user = j["user"].to_numpy(np.int64)
    users, user_idx = np.unique(user, return_inverse=True)
    if len(users) < MIN_USERS:
        raise InputError(
            f"{where}: the trace has {len(users)} user (field 12 is {users[0]} for every job); "
            f"campaigns need at least {MIN_USERS} users"
        )
    n = workload.nodes(nodes)
    submit = j["submit"].to_numpy(np.int64)
    runtime = np.maximum(j["runtime"].to_numpy(np.int64), 1)
    estimate = j["estimate"].to_numpy(np.int64)
    span = float(submit.max() - submit.min())
    if span <= 0:
        raise InputError(f"{where}: every job is submitted at the same second; arrivals cannot be fitted")
    # campaigns: per user, in submit order, split at gaps above the threshold
    o = np.lexsort((np.arange(len(j)), submit, user_idx))
    us, ss = user_idx[o], submit[o]
    new = np.r_[True, (us[1:] != us[:-1]) | (np.diff(ss) > threshold)]
    cid_sorted = np.cumsum(new) - 1
    sizes = np.bincount(cid_sorted)
    C = len(sizes)
    within_gaps = np.diff(ss)[~new[1:]].astype(float)
    if within_gaps.size == 0:
        within_gaps = np.zeros(1)
    starts = ss[new] - submit.min()
    camp_user = us[new]
    # run times: the marginal at the normal-score grid, and the latent variance shares
    lr = np.log(runtime.astype(float))
    if np.ptp(lr) == 0:  # the model's run times are a distribution with variance shares: none to fit
        raise InputError(
            f"{where}: every job runs {int(runtime[0])} s; the model fits a distribution of run times, "
            "expected a trace whose run times differ"
        )
    log_q = np.quantile(lr, z_probabilities())
    score = ndtri((rankdata(lr) - 0.5) / len(lr))
    score = (score - score.mean()) / score.std()
    nu = np.bincount(user_idx)
    user_mean = np.bincount(user_idx, weights=score) / nu
    user_share = float(np.sum(nu * user_mean**2) / len(score))
    # the correlation of consecutive jobs of one campaign: campaigns drift, so the pooled
    # within-campaign variance understates how alike neighbouring jobs are
    sc = score[o]
    pair = ~new[1:]
    total_share = float(np.clip(np.corrcoef(sc[:-1][pair], sc[1:][pair])[0, 1], 0.0, 0.999)) if pair.sum() > 2 else 0.0
    user_share = float(np.clip(user_share, 0.0, total_share))
    campaign_share = float(max(total_share - user_share, 0.0))
    if user_share + campaign_share >= 0.999:
        campaign_share = 0.999 - user_share
    # arrivals: submissions per hour of the week over the hours the trace covers; campaign starts
    # in operational time (the cumulative rate), so that the cycle is not counted twice
    t_all = (submit - submit.min()).astype(float)
    how = np.floor((t_all % WEEK) / HOUR).astype(np.int64)
    counts = np.bincount(how, minlength=168).astype(float)
    # how many of the span's hours fall on each hour of the week: bincount(arange(hours) % 168) in closed form (a
    # span of 2^53 seconds is 2.5 trillion hours: an array of them was 18 TiB)
    hours = int(span // HOUR) + 1
    exposure = np.full(168, float(hours // 168))
    exposure[: hours % 168] += 1.0
    rate = np.where(exposure > 0, counts / np.maximum(exposure, 1.0), 0.0)
    if rate.sum() <= 0:
        rate = np.ones(168)
    rate = rate / rate.mean()
    # idle periods: gaps of a day or more (operational time) in which nobody submits; taken out
    # of the clock before the gaps between campaign starts are measured
    op_all = _cumulative_rate(np.sort(t_all), rate)
    g_all = np.diff(op_all)
    idle = g_all >= LONG_GAP
    removed = np.concatenate([[0.0], np.cumsum(np.where(idle, g_all, 0.0))])
    op_start = np.interp(_cumulative_rate(np.sort(starts.astype(float)), rate), op_all, op_all - removed)
    start_gaps = np.diff(op_start) if C > 1 else np.zeros(1)
    long_gaps = g_all[idle] if idle.any() else np.full(1, LONG_GAP)
    ratio = np.log(np.maximum(estimate, runtime) / runtime)
    try:  # (the constructor checks every field: a run time of 1e15 s gave a load of 1.6e8)
        model = WorkloadModel(
            jobs=int(len(j)),
            nodes=int(n),
            load=float(runtime.sum() / (n * span)),
            size_quantiles=tuple(np.quantile(sizes.astype(float), P_GRID)),
            gap_quantiles=tuple(np.quantile(within_gaps, P_GRID)),
            user_shares=tuple(np.bincount(camp_user, minlength=len(users)) / C),
            user_effects=tuple(user_mean / np.sqrt(user_share) if user_share > 0 else np.zeros(len(users))),
            log_runtime_quantiles=tuple(log_q),
            user_share=user_share,
            campaign_share=campaign_share,
            hour_of_week=tuple(rate),
            start_gap_quantiles=tuple(np.quantile(start_gaps, P_GRID)),
            long_gap_share=float(idle.sum() / C),
            long_gap_quantiles=tuple(np.quantile(long_gaps, P_GRID)),
            log_estimate_ratio_quantiles=tuple(np.quantile(ratio, P_GRID)),
            threshold=float(threshold),
            source=source,
            notes={"campaigns": C, "users": int(len(users))},
        )
    except InputError as exc:
        raise _beyond(exc, source) from None
    return _readable(model, source)


def _readable(model: WorkloadModel, source: str) -> WorkloadModel:
    """``model``, where a model file of it reads back (the reader's schema: its limits on every field); else an
    :class:`InputError` saying that the trace gives a model no model file holds, and why (hunt 16a: one submit
    time at 1e15 s gave a long gap of 1e15 s, written, then refused by every reader of the file)."""
    try:
        WorkloadModel.from_dict(tomllib.loads(model.to_toml()), where="model")
    except InputError as exc:
        raise _beyond(exc, source) from None
    return model


def _beyond(exc: InputError, source: str) -> InputError:
    """The error for a trace whose fitted model no model file holds (the constructor's or the reader's ``exc``):
    the trace named, not the model (hunt 16a: one run time of 1e15 s was refused as a field of "workload model
    (rt)", a model the user never wrote)."""
    reason = re.sub(r"^(model|workload model( \([^)]*\))?): ", "", str(exc))
    return InputError(
        f"{'trace ' + source if source else 'the trace'}: the model fitted to it is beyond what a model file "
        f"holds ({reason}); a submit time far from the others, or a run time or load far from any cluster's, gives "
        "such a model: look at the trace's times (`gamemarket workload info`)"
    )
