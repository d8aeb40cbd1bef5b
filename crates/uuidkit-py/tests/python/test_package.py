"""The package as shipped: exports, docstrings, type stubs."""

import ast
import importlib.resources
import inspect

import uuidkit
from uuidkit import _uuidkit

NATIVE = {name for name in dir(_uuidkit) if not name.startswith("_")}


def test_all_names_exist_and_native_ones_are_exported():
    for name in uuidkit.__all__:
        assert hasattr(uuidkit, name), name
    assert NATIVE <= set(uuidkit.__all__)


def test_every_native_function_and_class_is_documented():
    for name in NATIVE:
        doc = inspect.getdoc(getattr(_uuidkit, name))
        assert doc and len(doc) > 30, name


def test_the_stubs_declare_every_native_name():
    package = importlib.resources.files("uuidkit")
    assert package.joinpath("py.typed").is_file()
    tree = ast.parse(package.joinpath("_uuidkit.pyi").read_text())
    declared = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    assert declared == NATIVE


def test_signatures_match_the_stubs():
    tree = ast.parse(importlib.resources.files("uuidkit").joinpath("_uuidkit.pyi").read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            stub = [a.arg for a in node.args.args + node.args.kwonlyargs]
            real = list(inspect.signature(getattr(_uuidkit, node.name)).parameters)
            assert stub == real, node.name


def test_the_readme_example_runs_and_prints_what_it_says(capsys):
    import datetime
    import pathlib

    readme = (pathlib.Path(__file__).resolve().parents[2] / "README.md").read_text()
    code = readme.split("```python\n", 1)[1].split("```", 1)[0]
    assert len([line for line in code.splitlines() if line.strip()]) == 5  # five lines, as promised
    exec(compile(code, "README.md", "exec"), {})
    when, typeid = capsys.readouterr().out.splitlines()
    assert datetime.datetime.fromisoformat(when).tzinfo == datetime.timezone.utc
    prefix, key = uuidkit.from_typeid(typeid)
    assert prefix == "user" and key.version == 7
