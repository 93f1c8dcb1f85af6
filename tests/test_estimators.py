"""scikit-learn's estimator checks on bandkit's estimators (in the spirit of skchange's test_all.py).

Every check runs; a check an estimator is expected to fail is listed in ``EXPECTED_FAILURES`` with
the reason, and scikit-learn then reports it as xfail (and fails the suite if it starts passing, so
the list cannot go stale).
"""
from sklearn.utils.estimator_checks import parametrize_with_checks

from bandkit.bands import BandDetector

ESTIMATORS = [BandDetector(), BandDetector(n_bands=2)]

#: Estimator class name -> {check name: why it is expected to fail}. BandDetector passes every check:
#: it takes X (n_samples, n_features) with one row per observation in time order (several columns are
#: repeated measurements of the observation, averaged), ignores y, raises ValueError for bad
#: parameters and data, and accepts NaN as a missing observation (tag allow_nan).
EXPECTED_FAILURES: dict[str, dict[str, str]] = {
    "BandDetector": {},
}


def _expected_failed_checks(estimator):
    return EXPECTED_FAILURES.get(type(estimator).__name__, {})


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failed_checks)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_every_estimator_is_checked():
    """Every scikit-learn estimator bandkit exports runs the checks above (ChangePointDetector joins the
    list when it subclasses BaseEstimator)."""
    import importlib

    from sklearn.base import BaseEstimator

    found = set()
    for module in ("bandkit.bands", "bandkit.changepoints", "bandkit.spectrum", "bandkit.postmortem"):
        mod = importlib.import_module(module)
        for name in mod.__all__:
            obj = getattr(mod, name)
            if isinstance(obj, type) and issubclass(obj, BaseEstimator):
                found.add(name)
    assert "BandDetector" in found
    assert found <= {type(e).__name__ for e in ESTIMATORS}, found
