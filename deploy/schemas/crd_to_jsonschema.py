# SPDX-License-Identifier: Apache-2.0
"""Turns CustomResourceDefinition YAML files into the JSON schemas kubeconform reads.

    python3 deploy/schemas/crd_to_jsonschema.py OUT_DIR CRD.yaml...

writes OUT_DIR/<group>/<kind>_<version>.json for every served version, which kubeconform
finds with -schema-location 'OUT_DIR/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json'.
The same conversion as kubeconform's openapi2jsonschema.py, strict: an object schema that
lists its properties and says nothing of others gets additionalProperties: false (unless it
has x-kubernetes-preserve-unknown-fields), so a misspelt field fails validation as the API
server's structural pruning would drop it. Kubernetes' extensions become JSON Schema:
x-kubernetes-int-or-string -> integer or string, nullable -> null allowed.
"""
import json
import pathlib
import sys

import yaml


def strict(schema):
    if isinstance(schema, list):
        return [strict(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    schema = {key: strict(value) for key, value in schema.items()}
    if schema.pop("x-kubernetes-int-or-string", False):
        schema.pop("type", None)
        schema.pop("anyOf", None)
        schema["oneOf"] = [{"type": "integer"}, {"type": "string"}]
    if schema.pop("nullable", False) and isinstance(schema.get("type"), str):
        schema["type"] = [schema["type"], "null"]
    preserve = schema.pop("x-kubernetes-preserve-unknown-fields", False)
    if "properties" in schema and "additionalProperties" not in schema and not preserve:
        schema["additionalProperties"] = False
    return schema


def convert(crd_path, out_dir):
    written = []
    for document in yaml.safe_load_all(pathlib.Path(crd_path).read_text()):
        if not document or document.get("kind") != "CustomResourceDefinition":
            continue
        spec = document["spec"]
        kind = spec["names"]["kind"].lower()
        for version in spec["versions"]:
            schema = version.get("schema", {}).get("openAPIV3Schema")
            if schema is None:
                continue
            schema = strict(schema)
            # Every object has these three, whatever the CRD lists.
            schema.setdefault("properties", {}).update({
                "apiVersion": {"type": "string", "enum": [f"{spec['group']}/{version['name']}"]},
                "kind": {"type": "string", "enum": [spec["names"]["kind"]]},
                "metadata": {"type": "object"},
            })
            target = out_dir / spec["group"] / f"{kind}_{version['name']}.json"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(schema, indent=1, sort_keys=True))
            written.append(target)
    if not written:
        sys.exit(f"error: {crd_path} holds no CustomResourceDefinition with a schema")
    return written


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out_dir = pathlib.Path(sys.argv[1])
    for crd_path in sys.argv[2:]:
        for target in convert(crd_path, out_dir):
            print(target)


if __name__ == "__main__":
    main()
