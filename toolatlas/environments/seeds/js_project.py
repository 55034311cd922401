"""``wild.jsproject``: a small JavaScript project with an ESLint flat config, for linting servers.

The config enables a handful of core rules (no plugins, nothing to install) and ignores
``build/``. ``src/math.js`` is clean, ``src/cart.js`` breaks four rules, ``src/broken.js`` does
not parse, ``build/bundle.js`` is ignored by the config and ``docs/notes.md`` is not JavaScript —
each answers a lint request differently.
"""

from __future__ import annotations

from pathlib import Path

from toolatlas.environments.seeds._registry import pin_times, seed, write_text

__all__ = ["FILES", "build_js_project"]

FILES: dict[str, str] = {
    "package.json": '{\n  "name": "shop-utils",\n  "version": "1.0.0",\n  "private": true\n}\n',
    "eslint.config.js": """module.exports = [
  { ignores: ["build/**"] },
  {
    files: ["**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "commonjs",
      globals: { module: "writable", require: "readonly", console: "readonly" },
    },
    rules: {
      "no-unused-vars": "error",
      "no-undef": "error",
      eqeqeq: "error",
      "no-var": "error",
      "prefer-const": "warn",
    },
  },
];
""",
    "src/math.js": """function add(a, b) {
  return a + b;
}

function average(values) {
  return values.reduce(add, 0) / values.length;
}

module.exports = { add, average };
""",
    "src/cart.js": """const { add } = require("./math");

var total = 0;
let discount = 5;

function addItem(price) {
  if (price == null) {
    return total;
  }
  total = add(total, price);
  return total;
}

function checkout() {
  console.log("total", total);
  return applyTax(total);
}

module.exports = { addItem, checkout };
""",
    "src/broken.js": "function summarise(items {\n  return items.length;\n}\n",
    "build/bundle.js": "var a = 1; var b = a == 1;\n",
    "docs/notes.md": "# Notes\n\nRun the linter before every commit.\n",
}


@seed("wild.jsproject", kind="directory")
def build_js_project(dest: Path) -> None:
    """Write the project folder at ``dest``."""
    dest.mkdir()
    for relative, text in FILES.items():
        write_text(dest / relative, text)
    pin_times(dest)
