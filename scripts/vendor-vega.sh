#!/usr/bin/env bash
# Builds .dvc/plots/offline.html, the page template `dvc plots show/diff` use (.dvc/config: plots.html_template):
# DVC's own page loads vega, vega-lite and vega-embed from a CDN, which leaves the page blank on a machine without
# internet (as machines holding health or credit data often are). This template carries the same three libraries
# inline, at the versions DVC's renderer names (dvc_render.vega), taken from the npm registry with their licences
# (.dvc/plots/vendor/). Rerun after a DVC upgrade that changes those versions.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSIONS=(vega@5.20.2 vega-lite@5.2.0 vega-embed@6.18.2)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "${VERSIONS[@]}" >/dev/null)
mkdir -p .dvc/plots/vendor
scripts=""
for spec in "${VERSIONS[@]}"; do
    name=${spec%@*}
    mkdir -p "$work/$name"
    tar xzf "$work/$name-${spec#*@}.tgz" -C "$work/$name"
    cp "$work/$name/package/LICENSE" ".dvc/plots/vendor/$name.LICENSE"
    scripts+="<script>/* $spec, from the npm registry; licence: .dvc/plots/vendor/$name.LICENSE */
$(cat "$work/$name/package/build/$name.min.js")
</script>
"
done
{
    printf '<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n{refresh_tag}\n<title>DVC plots</title>\n'
    printf '%s' "$scripts"
    printf '<style>body{font-family:system-ui,sans-serif;margin:1em}table{border-spacing:15px}</style>\n'
    printf '</head>\n<body>\n{plot_divs}\n</body>\n</html>\n'
} > .dvc/plots/offline.html
echo "wrote .dvc/plots/offline.html ($(wc -c < .dvc/plots/offline.html) bytes)"
