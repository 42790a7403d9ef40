"""Transformers fitted on training rows only: imputation, encoding, scaling."""
from .encoders import OneHotEncoder
from .imputers import SimpleImputer
from .scalers import StandardScaler

__all__ = ["OneHotEncoder", "SimpleImputer", "StandardScaler"]
