"""Matplotlib figures for the report and MLflow, drawn from the stage report files. PNG bytes are
deterministic: no timestamp or version metadata, the Agg backend, fixed sizes and DPI."""
from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams.update({"figure.dpi": 100, "font.size": 9, "axes.grid": True, "grid.alpha": 0.3})


def png_bytes(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, metadata={"Software": None}, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def roc(points: list[dict], auc: float) -> bytes:
    fig, ax = plt.subplots(figsize=(4, 4))
    ax.plot([p["fpr"] for p in points], [p["tpr"] for p in points], label=f"model (AUC {auc:.3f})")
    ax.plot([0, 1], [0, 1], "--", color="grey", label="chance")
    ax.set(xlabel="false positive rate", ylabel="true positive rate", title="ROC curve (test)")
    ax.legend(loc="lower right")
    return png_bytes(fig)


def precision_recall(points: list[dict], average_precision: float, prevalence: float) -> bytes:
    fig, ax = plt.subplots(figsize=(4, 4))
    ax.step([p["recall"] for p in points], [p["precision"] for p in points], where="post", label=f"model (AP {average_precision:.3f})")
    ax.axhline(prevalence, linestyle="--", color="grey", label=f"prevalence {prevalence:.3f}")
    ax.set(xlabel="recall", ylabel="precision", title="Precision-recall curve (test)", ylim=(0, 1.02))
    ax.legend(loc="lower left")
    return png_bytes(fig)


def reliability(rows: list[dict], title: str) -> bytes:
    fig, ax = plt.subplots(figsize=(4, 4))
    ax.plot([0, 1], [0, 1], "--", color="grey", label="perfect calibration")
    for label in dict.fromkeys(r["calibration"] for r in rows):
        pts = [r for r in rows if r["calibration"] == label and r["count"]]
        ax.plot([r["mean_predicted"] for r in pts], [r["fraction_positive"] for r in pts], "o-", label=label)
    ax.set(xlabel="mean predicted probability", ylabel="observed positive frequency", title=title, xlim=(0, 1), ylim=(0, 1))
    ax.legend(loc="upper left")
    return png_bytes(fig)


def validation_curve(rows: list[dict], scoring: str) -> bytes:
    fig, ax = plt.subplots(figsize=(5, 3.2))
    x = range(len(rows))
    ax.plot(x, [r["train"] for r in rows], "o-", label="train (fold mean)")
    ax.plot(x, [r["valid"] for r in rows], "o-", label="validation (fold mean)")
    ax.set_xticks(list(x), [r["params"] for r in rows], rotation=30, ha="right")
    ax.set(ylabel=scoring, title="Search candidates: train vs validation")
    ax.legend()
    return png_bytes(fig)


def group_rates(attribute: str, groups: dict) -> bytes:
    metrics = ("selection_rate", "tpr", "fpr")
    names = list(groups)
    fig, ax = plt.subplots(figsize=(5, 0.5 + 0.45 * len(names) * len(metrics) / 2))
    height = 0.8 / len(metrics)
    for i, metric in enumerate(metrics):
        values = [groups[g][metric] if groups[g][metric] is not None else 0.0 for g in names]
        ax.barh([j + i * height for j in range(len(names))], values, height=height, label=metric)
    ax.set_yticks([j + height for j in range(len(names))], names)
    ax.set(xlim=(0, 1), title=f"Test-set rates by {attribute}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=7)
    return png_bytes(fig)


def importance(features: list[dict], scoring: str, top: int = 15) -> bytes:
    shown = features[:top][::-1]
    fig, ax = plt.subplots(figsize=(5, 0.5 + 0.28 * len(shown)))
    ax.barh([f["feature"] for f in shown], [f["mean"] for f in shown],
            xerr=[[f["mean"] - f["ci_low"] for f in shown], [f["ci_high"] - f["mean"] for f in shown]], color="tab:blue")
    ax.set(xlabel=f"drop in {scoring} when permuted (95% interval)", title="Permutation importance (test)")
    return png_bytes(fig)


def shapley_summary(shapley: dict, names: list[str], top: int = 15) -> bytes:
    """One row per feature (largest mean |phi| on top): every explained row's Shapley value as a dot."""
    order = [names.index(f["feature"]) for f in shapley["features"][:top]][::-1]
    values = [[row[j] for row in shapley["values"]] for j in order]
    fig, ax = plt.subplots(figsize=(5.5, 0.5 + 0.3 * len(order)))
    for k, column in enumerate(values):
        jitter = [((i * 7919) % 101 / 101 - 0.5) * 0.5 for i in range(len(column))]  # deterministic spread
        ax.scatter(column, [k + j for j in jitter], s=5, alpha=0.5, color="tab:purple")
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_yticks(range(len(order)), [names[j] for j in order])
    ax.set(xlabel=f"Shapley value ({shapley['output']})", title=f"Shapley values ({shapley['method']}), test sample")
    return png_bytes(fig)


def partial_dependence(curve: dict, max_ice: int = 50) -> bytes:
    fig, ax = plt.subplots(figsize=(4, 3.2))
    numeric = all(isinstance(v, (int, float)) for v in curve["grid"])
    x = curve["grid"] if numeric else list(range(len(curve["grid"])))
    for line in curve["ice"][:max_ice]:
        ax.plot(x, line, color="tab:grey", alpha=0.25, linewidth=0.7)
    ax.plot(x, curve["average"], color="tab:red", linewidth=2, label="partial dependence")
    if not numeric:
        ax.set_xticks(x, curve["grid"], rotation=45)
    ax.set(xlabel=curve["feature"], ylabel="calibrated probability", title=f"PD and ICE: {curve['feature']}")
    ax.legend(loc="best", fontsize=7)
    return png_bytes(fig)


def partial_dependence_2d(surface: dict) -> bytes:
    fig, ax = plt.subplots(figsize=(4.2, 3.4))
    image = ax.imshow(surface["average"], origin="lower", aspect="auto", cmap="viridis")
    ax.grid(False)
    fig.colorbar(image, ax=ax, label="calibrated probability")
    (a, b), (ga, gb) = surface["features"], surface["grid"]
    step_a, step_b = max(1, len(ga) // 6), max(1, len(gb) // 6)
    ax.set_yticks(range(0, len(ga), step_a), [f"{v:.3g}" if isinstance(v, float) else v for v in ga[::step_a]])
    ax.set_xticks(range(0, len(gb), step_b), [f"{v:.3g}" if isinstance(v, float) else v for v in gb[::step_b]])
    ax.set(ylabel=a, xlabel=b, title=f"Partial dependence: {a} x {b}")
    return png_bytes(fig)
