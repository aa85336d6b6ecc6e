#!/usr/bin/env python3
"""Writes Sources/LarderPack/Fonts/CharacterReferences.swift from Python's html.entities.html5."""
import html.entities
import pathlib

items = sorted((name[:-1], value) for name, value in html.entities.html5.items() if name.endswith(";"))
lines = [name + " " + " ".join("%X" % ord(c) for c in value) for name, value in items]
header = [
    "/// HTML's named character references (WHATWG, \"Named character references\"), generated from",
    "/// Python's `html.entities.html5` (the names that end with `;`): one `name HEX [HEX]` a line.",
    "/// Regenerate with Tools/generate-character-references.py.",
    "enum CharacterReferences {",
    "    /// Name (without `&` and `;`) to the characters it stands for.",
    "    static let table: [String: [UInt32]] = {",
    "        var table: [String: [UInt32]] = [:]",
    "        table.reserveCapacity(%d)" % len(items),
    "        for line in text.split(separator: \"\\n\") {",
    "            let parts = line.split(separator: \" \")",
    "            table[String(parts[0])] = parts.dropFirst().compactMap { UInt32($0, radix: 16) }",
    "        }",
    "        return table",
    "    }()",
    "",
    "    private static let text = \"\"\"",
]
footer = ["        \"\"\"", "}", ""]
target = pathlib.Path(__file__).resolve().parent.parent / "Sources/LarderPack/Fonts/CharacterReferences.swift"
target.write_text("\n".join(header + ["        " + line for line in lines] + footer))
