"""scikit-learn's estimator checks on bandkit's estimators (in the spirit of skchange's test_all.py).

Every check runs; a check an estimator is expected to fail is listed in ``EXPECTED_FAILURES`` with
the reason, and scikit-learn then reports it as xfail (and fails the suite if it starts passing, so
the list cannot go stale).
"""
from sklearn.utils.estimator_checks import parametrize_with_checks

from bandkit.bands import BandDetector
from bandkit.changepoints import ChangePointDetector

ESTIMATORS = [BandDetector(), BandDetector(n_bands=2), ChangePointDetector()]

#: Estimator class name -> {check name: why it is expected to fail}. BandDetector passes every check:
#: it takes X (n_samples, n_features) with one row per observation in time order (several columns are
#: repeated measurements of the observation, averaged), ignores y, raises ValueError for bad
#: parameters and data, and accepts NaN as a missing observation (tag allow_nan).
#: ChangePointDetector segments one series: X must have exactly one feature (it raises ValueError for
#: more), and these checks feed multi-feature data to fit; they are re-done on one series in
#: tests/test_changepoints.py::test_estimator_contract_on_univariate_data. Change detection also depends on
#: sample order by design (the order is the time axis), as skchange lists for its detectors.
_UNIVARIATE = "takes one series (n_features=1); sklearn's generic checks pass multi-feature X"
EXPECTED_FAILURES: dict[str, dict[str, str]] = {
    "BandDetector": {},
    "ChangePointDetector": {
        **dict.fromkeys((
            "check_dict_unchanged", "check_dont_overwrite_parameters", "check_dtype_object",
            "check_estimators_dtypes", "check_estimators_fit_returns_self", "check_estimators_nan_inf",
            "check_estimators_overwrite_params", "check_estimators_pickle", "check_f_contiguous_array_estimator",
            "check_fit2d_predict1d", "check_fit_check_is_fitted", "check_fit_idempotent", "check_fit_score_takes_y",
            "check_n_features_in", "check_n_features_in_after_fitting", "check_pipeline_consistency",
            "check_positive_only_tag_during_fit", "check_readonly_memmap_input"), _UNIVARIATE),
        "check_methods_subset_invariance": "a subset of a series is another series: segments differ",
        "check_methods_sample_order_invariance": "sample order is the time axis of a change-point problem",
    },
}


def _expected_failed_checks(estimator):
    return EXPECTED_FAILURES.get(type(estimator).__name__, {})


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failed_checks)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_every_estimator_is_checked():
    """Every scikit-learn estimator bandkit exports runs the checks above."""
    import importlib

    from sklearn.base import BaseEstimator

    found = set()
    for module in ("bandkit.bands", "bandkit.changepoints", "bandkit.spectrum", "bandkit.postmortem"):
        mod = importlib.import_module(module)
        for name in mod.__all__:
            obj = getattr(mod, name)
            if isinstance(obj, type) and issubclass(obj, BaseEstimator):
                found.add(name)
    assert {"BandDetector", "ChangePointDetector"} <= found
    assert found <= {type(e).__name__ for e in ESTIMATORS}, found
