"""The symbolic ids of namespace 0's nodes as Opc.Ua.NodeSet2.xml gives them: the names NodeIds.csv
uses ("Server_ServerStatus_State", "ReadRequest_Encoding_DefaultBinary").

The OPC Foundation publishes NodeIds.csv beside each NodeSet, but a folder may hold a newer NodeSet
than its CSV (node-opcua-nodesets ships Opc.Ua.NodeSet2.xml and Opc.Ua.Types.bsd only). The names
follow one rule, so the nodes the CSV lacks can be named from the NodeSet itself:

    a node's own name is its SymbolicName, or else its BrowseName without the namespace index;
    an encoding object (the target of an inverse HasEncoding) is <DataType>_Encoding_<own name>;
    any other node with a ParentNodeId is <parent's symbolic id>_<own name>;
    a node without a parent is its own name.

Checked against the 1.05.03 pair (NodeSet and NodeIds.csv): the rule gives the CSV's name and
class for all of the NodeSet's numeric nodes. Standard library only."""

import re
import xml.etree.ElementTree as ET

NS = "{http://opcfoundation.org/UA/2011/03/UANodeSet.xsd}"
HAS_ENCODING = 38  # the HasEncoding ReferenceType (Part 3), ns=0;i=38
MAX_DEPTH = 64     # ParentNodeId chains are short; a longer one is a loop


class SymbolicIdError(Exception):
    pass


def _numeric(text, aliases):
    text = aliases.get(text, text) if text is not None else None
    m = re.fullmatch(r"i=(\d+)", (text or "").strip())
    return int(m.group(1)) if m else None


def nodeset_symbolic_ids(path):
    """[(symbolic id, numeric id, class)] of every node of namespace 0 with a numeric NodeId, in
    document order; class as NodeIds.csv spells it (Object, Variable, DataType, ...)."""
    root = ET.parse(path).getroot()
    aliases = {}
    al = root.find(NS + "Aliases")
    if al is not None:
        aliases = {a.get("Alias"): (a.text or "").strip() for a in al}

    nodes = {}  # id -> (class, own name, parent id or None, separator)
    order = []
    for el in root:
        tag = el.tag[len(NS):] if el.tag.startswith(NS) else el.tag
        if not tag.startswith("UA"):
            continue
        node = _numeric(el.get("NodeId"), {})
        if node is None:
            continue
        own = el.get("SymbolicName") or (el.get("BrowseName") or "").split(":", 1)[-1]
        if not own:
            raise SymbolicIdError(f"{tag} i={node}: no BrowseName")
        parent, sep = _numeric(el.get("ParentNodeId"), aliases), "_"
        refs = el.find(NS + "References")
        for ref in refs if refs is not None else []:
            if ref.get("IsForward") == "false" and _numeric(ref.get("ReferenceType"), aliases) == HAS_ENCODING:
                parent, sep = _numeric(ref.text, aliases), "_Encoding_"
        nodes[node] = (tag[2:], own, parent, sep)
        order.append(node)

    names = {}

    def name_of(node, depth=0):
        if node not in names:
            if depth > MAX_DEPTH:
                raise SymbolicIdError(f"i={node}: its ParentNodeId chain does not end")
            _, own, parent, sep = nodes[node]
            names[node] = own if parent not in nodes else name_of(parent, depth + 1) + sep + own
        return names[node]

    return [(name_of(n), n, nodes[n][0]) for n in order]
