"""Studies: strategies and study files as data, a parallel runner with a resumable result store."""

from gamemarket.studies.runner import load_results, run_study, study_status
from gamemarket.studies.spec import GameDef, StudySpec, load_study

__all__ = ["GameDef", "StudySpec", "load_results", "load_study", "run_study", "study_status"]
