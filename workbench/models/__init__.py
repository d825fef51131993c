"""The models: scalability (ADEPT, Downey, baselines, PMNF, the scaling predictor), FiM, communication, fractal.

They depend on nothing above them (no io, evaluation, plots or dashboards).
"""
