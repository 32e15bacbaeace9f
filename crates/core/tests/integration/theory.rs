// Theory formulas against enumeration and Monte Carlo.
