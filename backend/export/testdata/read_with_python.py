"""Reads Rhizome's exports with real third-party parsers, for export_test.go.

Usage: read_with_python.py GRAPHML GEXF_1_3 GEXF_1_2 MARKDOWN_DIR
Prints one JSON object: what NetworkX read from each graph file and what
PyYAML read from the front matter of every note. A format NetworkX cannot
read in this interpreter (GEXF 1.3 needs NetworkX 2.6 or later) is reported
as {"error": ...}; the Go test decides what that means.
"""
import json
import os
import sys

import networkx as nx
import yaml


def summary(g):
    nodes = {}
    for n, d in g.nodes(data=True):
        nodes[d.get("uri", n)] = {k: v for k, v in d.items() if k in ("kind", "label", "outcome", "clearGoal", "costUSD")}
    types = {}
    sample = None
    for u, v, d in g.edges(data=True):
        t = d.get("type")
        types[t] = types.get(t, 0) + 1
        if sample is None and t == "RELATES_TO" and d.get("similarity") is not None:
            sample = {"source": g.nodes[u].get("uri"), "target": g.nodes[v].get("uri"),
                      "confidence": d.get("confidence"), "similarity": d.get("similarity"),
                      "weight": d.get("weight"), "directed": d.get("directed"), "rationale": d.get("rationale")}
    return {"nodes": g.number_of_nodes(), "edges": g.number_of_edges(), "byType": types,
            "nodeAttrs": nodes, "sampleEdge": sample}


def read(fn, path, **kw):
    try:
        return summary(fn(path, **kw))
    except Exception as e:  # reported, judged by the Go test
        return {"error": "%s: %s" % (type(e).__name__, e)}


def notes(folder):
    out = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            text = f.read()
        if not text.startswith("---\n"):
            out[name] = {"error": "no front matter at byte 0"}
            continue
        end = text.index("\n---\n", 4)
        try:
            props = yaml.safe_load(text[4:end])
            out[name] = {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in props.items()}
        except Exception as e:
            out[name] = {"error": "%s: %s" % (type(e).__name__, e)}
    return out


graphml, gexf13, gexf12, md = sys.argv[1:5]
print(json.dumps({
    "networkx": nx.__version__,
    "graphml": read(nx.read_graphml, graphml),
    "gexf13": read(nx.read_gexf, gexf13, version="1.3"),
    "gexf12": read(nx.read_gexf, gexf12, version="1.2draft"),
    "notes": notes(md),
}, default=str))
