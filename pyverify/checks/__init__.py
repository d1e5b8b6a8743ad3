"""The check language: the expression DSL, its vocabulary (one record per function, every backend), the
hypothesis samplers, and checks compiled for evaluation on batches of instances."""
