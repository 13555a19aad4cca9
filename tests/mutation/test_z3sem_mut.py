"""verify/z3sem.py in detail: the z3 meaning of single forms checked against
the values the model computes."""
