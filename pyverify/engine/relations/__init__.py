"""One module per kind of relation: pointwise (identities and bounds), order, constant, expectation, exists."""
