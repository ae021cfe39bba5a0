"""The packages import each other only downwards, in the order docs/design.md draws:
protos <- framework <- platform <- ops <- runtime <- distributed, data, summary <- train,
layers, losses, metrics <- feature_column ... <- tools. A new import that runs up a layer fails here."""

import ast
import functools
import os

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src", "distflow")

LEAVES = {"protos", "version", "_namespace"}  # modules any package may use
BELOW = {
    "protos": set(),
    "framework": {"protos"},
    "platform": {"framework", "protos"},
    "ops": {"framework", "platform", "protos"},
    "runtime": {"framework", "platform", "ops", "protos"},
    "distributed": {"framework", "platform", "ops", "runtime", "protos"},
    "data": {"framework", "platform", "ops", "runtime", "protos"},
    "summary": {"framework", "platform", "ops", "protos"},
    "train": {"framework", "platform", "ops", "runtime", "distributed", "data", "summary", "protos"},
    "distribute": {"framework", "platform", "ops", "runtime", "data", "protos"},
    "saved_model": {"framework", "platform", "ops", "runtime", "train", "protos"},
    "config": {"framework", "platform", "ops", "runtime", "protos"},
    "profiler": {"framework", "protos"},
    "layers": {"framework", "platform", "ops", "protos"},
    "feature_column": {"framework", "platform", "ops", "runtime", "distributed", "data", "summary", "train", "protos"},
    "losses": {"framework", "ops"},
    "metrics": {"framework", "ops"},
}


@functools.lru_cache(maxsize=None)
def parsed():
    """{path: (module's syntax tree, its nodes)} of every module, read once for both tests."""
    trees = {}
    for root, _, files in os.walk(SRC):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as f:
                    tree = ast.parse(f.read())
                trees[path] = (tree, list(ast.walk(tree)))
    return trees


def package_imports():
    """(importing package, imported top-level name, file) for each relative import leaving a package."""
    for root, _, files in os.walk(SRC):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(root, name)
            parts = os.path.relpath(path, SRC).split(os.sep)
            if len(parts) == 1:
                continue  # the top-level namespace modules gather names from everywhere
            for node in parsed()[path][1]:
                if isinstance(node, ast.ImportFrom) and node.level >= len(parts):
                    target = (node.module or "").split(".")[0]
                    targets = [target] if target else [alias.name for alias in node.names]
                    for t in targets:
                        if t != parts[0]:
                            yield parts[0], t, os.path.relpath(path, SRC)


def test_no_package_imports_a_layer_above_it():
    wrong = sorted({(pkg, target, path) for pkg, target, path in package_imports()
                    if pkg in BELOW and target not in BELOW[pkg] | LEAVES})
    assert not wrong, "imports that run up a layer (see docs/design.md):\n" + "\n".join(
        f"  {path}: {pkg} imports {target}" for pkg, target, path in wrong)


def module_imports():
    """(importing module, imported module) for every relative import of a distflow module,
    at any depth (an import inside a function is still a dependency); imports made only
    for type checking (``if TYPE_CHECKING:``) are left out."""
    modules = {}
    for root, _, files in os.walk(SRC):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(root, name)
                parts = os.path.relpath(path, SRC)[:-3].split(os.sep)
                package = name == "__init__.py"
                modules[".".join(parts[:-1] if package else parts)] = (path, package)
    for module, (path, package) in modules.items():
        nodes = parsed()[path][1]
        typing_only = {id(n) for node in nodes if isinstance(node, ast.If)
                       and getattr(node.test, "id", None) == "TYPE_CHECKING" for n in ast.walk(node)}
        here = module.split(".") if module else []
        base_of = here if package else here[:-1]
        for node in nodes:
            if not isinstance(node, ast.ImportFrom) or node.level == 0 or id(node) in typing_only:
                continue
            base = base_of[:len(base_of) - (node.level - 1)]
            source = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                target = f"{source}.{alias.name}".strip(".")
                target = target if target in modules else source
                if target in modules and target != module:
                    yield module, target


def test_no_module_imports_itself_through_others():
    graph: dict[str, set] = {}
    for module, target in module_imports():
        graph.setdefault(module, set()).add(target)
    graph.pop("", None)  # the top-level package gathers every name; nothing imports it back
    state, path, circles = {}, [], []

    def visit(module):
        state[module] = "open"
        path.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "open":
                circles.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target)
        path.pop()
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module)
    assert not circles, "import circles:\n" + "\n".join("  " + " -> ".join(c) for c in circles)
