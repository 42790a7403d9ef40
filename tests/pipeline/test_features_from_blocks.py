"""The features fitted from rows held in blocks (mllib's fit_blocks on Pipeline, ColumnTransformer, SimpleImputer,
StandardScaler, OneHotEncoder): the transformer params.yaml's default `features` section builds, fitted on real files
cut into uneven blocks, transforms every row as the same transformer fitted on the rows put together (medians and
levels exactly; means and variances within rounding). Files: the default data's sample (numeric and coded columns),
penguins (gaps in numeric and categorical columns, a missing indicator), titanic (categorical only, levels pooled by
min_frequency), digits (64 columns, many constant)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO, sample_frame
from real_data import BY_NAME

from mllib.base import RowBlocks
from pipeline.core import build
from pipeline.core.frames import feature_columns, raw_matrix

FEATURES = yaml.safe_load((REPO / "params.yaml").read_text())["features"]


def frames():
    data = yaml.safe_load((REPO / "params.yaml").read_text())["data"]
    yield "default sample", sample_frame(), data
    for name in ("penguins", "titanic", "digits"):
        dataset = BY_NAME[name]
        yield name, dataset.frame(), dataset.data_section("unused")


@pytest.mark.parametrize(("name", "frame", "data"), list(frames()), ids=lambda v: v if isinstance(v, str) else "")
def test_default_features_from_blocks_equal_fit(name, frame, data):
    frame = frame.dropna(subset=[data["target"]]).reset_index(drop=True)
    for column in data["categorical"]:
        frame[column] = frame[column].map(lambda v: v if pd.isna(v) else str(v)).astype(object)
    numeric, categorical = feature_columns(frame.columns, data)
    X, y = raw_matrix(frame, numeric, categorical), frame[data["target"]].to_numpy()
    whole = build.feature_transformer(FEATURES, numeric, categorical, 0).fit(X, y)
    cuts = [0, len(y) // 7, len(y) // 2, len(y)]
    blocks = RowBlocks((X[a:b], y[a:b], None) for a, b in zip(cuts[:-1], cuts[1:]))
    from_blocks = build.feature_transformer(FEATURES, numeric, categorical, 0).fit_blocks(blocks)
    names = numeric + categorical
    assert from_blocks.get_feature_names_out(names) == whole.get_feature_names_out(names)
    np.testing.assert_allclose(from_blocks.transform(X), whole.transform(X), rtol=1e-12, atol=1e-9)
    if categorical:
        assert build.pooled_levels(from_blocks, categorical) == build.pooled_levels(whole, categorical)


def test_a_step_that_needs_every_row_is_named():
    from mllib.base import Pipeline
    from mllib.decomposition import PCA

    X = np.random.default_rng(0).normal(size=(50, 4))
    with pytest.raises(ValueError, match="PCA cannot be fitted from rows held in blocks"):
        Pipeline([("project", PCA(n_components=2))]).fit_blocks(RowBlocks.of(X, np.zeros(50), n_blocks=2))
