"""Study ``value``: how well the value network knows who wins: its chance of winning for the player to move
against what happened, on fresh self-play games no fit saw.

Imports only :mod:`gnoming_sim.analyses.framework` and lower stages.
"""
from .study import ValueCalibration

__all__ = ["ValueCalibration"]
