

def test_is_number_of_strings_memoised_equals_float_parse():
    """metadata._is_number of a string (memoised) says what float() of it says: a number unless it fails or
    is NaN (whitespace, exponents, inf and 'nan' spellings, underscores, empty)."""
    import math

    from bandkit.metadata import _is_number

    for v in ["3", " 3.5 ", "1e999", "-inf", "nan", "NaN", "-nan", "1_000", "", "abc", "0x10", "Intel(R) Xeon",
              "1,5", "١٢", "  "]:
        try:
            want = not math.isnan(float(v))
        except ValueError:
            want = False
        assert _is_number(v) is want and _is_number(v) is want  # (second call: from the memo)
