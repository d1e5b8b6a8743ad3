# Claims of the registry are pytest items (pyverify/pytest_plugin.py), loaded through the `pytest11`
# entry point of the installed package (pyproject.toml). Not listed in `pytest_plugins` here: with the
# entry point also loading it, pytest would register the same plugin twice and stop. Without an
# installed pyverify: `pytest -p pyverify.pytest_plugin`.
