"""The fits that sum over chunks of rows (Platt's Newton terms and loss, temperature scaling's NLL derivatives): the
same fit as with the whole-array sums (one chunk), to rounding, on rows spread over many chunks."""

import numpy as np
import pytest
from scipy.special import expit

from mllib.calibration import PlattScaling, TemperatureScaling, _checks


@pytest.fixture
def scores():
    rng = np.random.default_rng(3)
    s = rng.normal(size=5000) * 2.0
    y = (rng.random(5000) < expit(0.7 * s + 0.2)).astype(int)
    return s, y, rng.uniform(0.5, 2.0, 5000)


def fitted(monkeypatch, chunk_rows, estimator, *data):
    monkeypatch.setattr(_checks, "_CHUNK_ROWS", chunk_rows)
    return estimator.fit(*data)


def test_chunks_cover_the_rows_once(monkeypatch):
    monkeypatch.setattr(_checks, "_CHUNK_ROWS", 3)
    assert [np.arange(10)[rows].tolist() for rows in _checks.row_chunks(10)] == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert list(_checks.row_chunks(0)) == []


def test_platt_in_chunks_equals_the_whole_array_fit(monkeypatch, scores):
    s, y, w = scores
    whole = fitted(monkeypatch, 10**9, PlattScaling(), s, y, w)
    chunked = fitted(monkeypatch, 64, PlattScaling(), s, y, w)  # 79 chunks
    assert chunked.n_iter_ == whole.n_iter_
    assert chunked.a_ == pytest.approx(whole.a_, rel=1e-12) and chunked.b_ == pytest.approx(whole.b_, rel=1e-12)


@pytest.mark.parametrize("binary", [True, False])
def test_temperature_in_chunks_equals_the_whole_array_fit(monkeypatch, scores, binary):
    s, y, w = scores
    logits = s if binary else np.column_stack([np.zeros_like(s), s, 0.5 * s])
    whole = fitted(monkeypatch, 10**9, TemperatureScaling(), logits, y, w)
    chunked = fitted(monkeypatch, 64, TemperatureScaling(), logits, y, w)
    assert chunked.temperature_ == pytest.approx(whole.temperature_, rel=1e-12)
