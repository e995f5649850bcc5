"""Where generate.py and nodeset.py find the OPC Foundation schema files: in the first of the
--schema folders that holds each. A folder of a newer NodeSet may hold only Opc.Ua.NodeSet2.xml
and Opc.Ua.Types.bsd (as node-opcua-nodesets ships them); the CSVs then come from the next."""

import os


class SchemaFileMissing(Exception):
    pass


def schema_file(folders, name):
    """The path of `name` in the first of the folders that holds it."""
    for folder in folders:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path
    raise SchemaFileMissing(f"{name} is in none of the schema folders: {', '.join(folders)}")
