# model zoo sources
