# Claims of the registry are pytest items (pyverify/pytest_plugin.py); elsewhere: `pytest -p pyverify.pytest_plugin`.
pytest_plugins = ["pyverify.pytest_plugin"]
