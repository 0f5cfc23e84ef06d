"""Plots of pmlopt's results with matplotlib (imported only when drawing)."""

import math


def _axes(ax):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots()
    return ax


def heatmap(mechanism, ax=None, inputs=None, outputs=None, title=None):
    """Draws an N×M mechanism as a heat map with a colour bar; returns the Axes."""
    ax = _axes(ax)
    im = ax.imshow(mechanism, aspect="auto", cmap="viridis", vmin=0, vmax=max(1e-300, float(mechanism.max())))
    ax.figure.colorbar(im, ax=ax, label="P(output | input)")
    ax.set_xlabel("output")
    ax.set_ylabel("input")
    if inputs is not None:
        ax.set_yticks(range(len(inputs)), labels=inputs)
    if outputs is not None:
        ax.set_xticks(range(len(outputs)), labels=outputs)
    if title:
        ax.set_title(title)
    return ax


def curve(points, ax=None, title=None):
    """Draws a worst-case curve (list of points) or expected-utility curves."""
    ax = _axes(ax)
    if points and "points" in points[0]:
        for c in points:
            xs = [p["epsilon"] for p in c["points"]]
            ys = [p["expected_utility"] for p in c["points"]]
            ax.plot(xs, ys, marker="o", label=c["measure"])
        ax.set_xlabel("budget ε (nats)")
        ax.set_ylabel("expected utility")
    else:
        key = "h" if points and "h" in points[0] else "threshold"
        xs = [p[key] for p in points]

        def finite(v):
            return v if v is not None and not math.isinf(v) else math.nan

        ax.step(xs, [finite(p["safe_epsilon"]) for p in points], where="post", marker="o", label="utility-safe ε_S")
        ax.step(xs, [finite(p["optimal_epsilon"]) for p in points], where="post", marker="o", label="optimal ε*")
        ax.fill_between(xs, [finite(p["optimal_epsilon_lower"]) for p in points],
                        [finite(p["optimal_epsilon"]) for p in points], step="post", alpha=0.3)
        ax.set_xlabel("worst-case utility order h" if key == "h" else "worst-case utility value")
        ax.set_ylabel("PML ε (nats)")
    ax.legend()
    if title:
        ax.set_title(title)
    return ax
