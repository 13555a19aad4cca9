"""The verifier: z3 and hypothesis checks of the properties a spec declares (in progress)."""
