"""GroupLabels and group_index: the codes give exactly what np.unique(labels, return_inverse=True) gives."""

import numpy as np
import pytest

from mllib.base import GroupLabels, group_index
from mllib.fairness import audit_groups, intersectional_groups, reweighing_weights


def test_group_index_of_codes_equals_np_unique_of_the_labels():
    rng = np.random.default_rng(0)
    values = np.array(["(missing)", "a", "b", "c=1", "zz"])
    codes = rng.choice([0, 1, 3, 4], size=500)  # "b" held by no row: dropped, as np.unique drops it
    labels = GroupLabels(values, codes)
    expected_values, expected_inverse = np.unique(values[codes], return_inverse=True)
    got_values, got_inverse = group_index(labels, 500)
    np.testing.assert_array_equal(got_values, expected_values)
    np.testing.assert_array_equal(got_inverse, expected_inverse)
    np.testing.assert_array_equal(np.asarray(labels), values[codes])
    np.testing.assert_array_equal(np.asarray(labels[codes > 1]), values[codes][codes > 1])


def test_group_labels_refuse_unsorted_values_and_codes_out_of_range():
    with pytest.raises(ValueError, match="sorted"):
        GroupLabels(np.array(["b", "a"]), np.array([0, 1]))
    with pytest.raises(ValueError, match="integer codes indexing them"):
        GroupLabels(np.array(["a", "b"]), np.array([0, 2]))
    with pytest.raises(ValueError, match="expected 3"):
        group_index(GroupLabels.of(["a", "b"]), 3)
    with pytest.raises(ValueError, match="mixes value types"):
        group_index(np.array(["a", 1], dtype=object), 2)


def test_intersections_from_codes_equal_the_spelled_labels():
    # values whose strings sort differently from their codes' order ("1!" < "1," but "1" < "1!"), ints and
    # GroupLabels mixed: every intersection equals the row-by-row spelling and its np.unique order
    rng = np.random.default_rng(1)
    a = rng.choice(np.array(["1", "1!", "10", "2"]), size=300)
    b = rng.integers(0, 3, size=300)
    c = GroupLabels.of(rng.choice(np.array(["x", "y"]), size=300))
    groupings = intersectional_groups({"a": a, "b": b, "c": c})
    spelled = {"a": a.astype(str), "b": b.astype(str), "c": np.asarray(c).astype(str)}
    for name in ("a & b", "a & c", "b & c", "a & b & c"):
        parts = name.split(" & ")
        expected = np.array([",".join(f"{p}={spelled[p][i]}" for p in parts) for i in range(300)])
        np.testing.assert_array_equal(np.asarray(groupings[name]), expected)
        values, inverse = group_index(groupings[name], 300)
        expected_values, expected_inverse = np.unique(expected, return_inverse=True)
        np.testing.assert_array_equal(values, expected_values)
        np.testing.assert_array_equal(inverse, expected_inverse)


def test_summaries_of_group_labels_equal_those_of_the_spelled_labels():
    rng = np.random.default_rng(2)
    y, pred, p = rng.integers(0, 2, 400), rng.integers(0, 2, 400), rng.random(400)
    labels = GroupLabels.of(rng.choice(np.array(["f", "m", "(missing)"]), size=400))
    kwargs = dict(proba=p, n_boot=20, random_state=3, min_group_size=1)
    assert audit_groups(y, pred, labels, **kwargs) == audit_groups(y, pred, np.asarray(labels), **kwargs)
    by_codes, by_labels = reweighing_weights(y, labels), reweighing_weights(y, np.asarray(labels))
    np.testing.assert_array_equal(by_codes["weights"], by_labels["weights"])
    assert by_codes["table"] == by_labels["table"]
