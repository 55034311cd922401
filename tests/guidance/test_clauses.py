"""The documentation as knowledge: operative clauses kept, advice dropped, shared clauses said once,
and each clause marked against what the atlas verified."""

from __future__ import annotations

from typing import ClassVar

from toolatlas.graph.models import EntryKind, ToolNode
from toolatlas.guidance.clauses import agreement, operative_clauses, purpose, shared_clauses, vocabulary
from toolatlas.models import OutcomeClass

from .conftest import entry

DESCRIPTION = ("Store a value under a key. If the key already exists, the call fails. Keys must be at most 64 "
               "characters. Perfect for caching! Values are kept in memory.")


def boundary(condition: str, error: str):
    return entry("kv", "put", EntryKind.BOUNDARY, condition=condition, error_signature=error, excerpt=error,
                 outcome=OutcomeClass.TOOL_ERROR, family="already_exists")


def accepted(condition: str):
    return entry("kv", "put", EntryKind.AFFORDANCE, when=f"{condition} (accepted)", family="already_exists")


class TestClauses:
    def test_purpose_and_operative_clauses(self) -> None:
        """The first sentence is the purpose; limits and failure conditions are kept; advice and plain
        statements are dropped."""
        assert purpose(DESCRIPTION) == "Store a value under a key."
        assert operative_clauses(DESCRIPTION) == ["If the key already exists, the call fails.",
                                                  "Keys must be at most 64 characters."]

    def test_a_docstrings_argument_answer_and_example_sections_are_no_clauses(self) -> None:
        """``Args:`` notes ("radius (default 1.0)"), ``Returns:`` and ``Example:`` say no condition of what the tool
        does; a ``Raises:`` section after them does."""
        docstring = ("Creates a sphere mesh.\n\nArgs:\n    output_path: Output STL file path.\n    radius: Sphere radius "
                     "(default 1.0).\n\nReturns:\n    Path to the output file.\n\nRaises:\n    ValueError: if radius is "
                     "not positive.\n\nExample:\n    >>> create_sphere(\"a.stl\", 2)\n")
        assert operative_clauses(docstring) == ["Raises: ValueError: if radius is not positive."]

    def test_what_most_tools_repeat_is_shared(self) -> None:
        """A clause most of a server's descriptions repeat is said once for the server."""
        descriptions = [f"Do thing {i}. Only works inside the sandbox." for i in range(4)] + ["Other. Fails on empty."]
        assert shared_clauses(descriptions) == {"onli work insid sandbox"}


class TestAgreement:
    FINDINGS: ClassVar = [boundary("`key` names a key that already exists", "Key already exists: user_9f3a"),
                          boundary("`value` is too large", "Value too large")]

    def test_a_boundary_verifies_a_failure_clause(self) -> None:
        """The clause says an existing key fails; the atlas saw that failure: verified, with its entry."""
        idf = vocabulary(self.FINDINGS)
        marked = agreement("If the key already exists, the call fails.", self.FINDINGS, idf)
        assert marked.status == "verified" and marked.entry_id == self.FINDINGS[0].id

    def test_an_accepted_call_contradicts_a_failure_clause(self) -> None:
        """The clause says an existing key fails; the atlas saw the call on an existing key accepted."""
        findings = [accepted("`key` names a key that already exists"), *self.FINDINGS[1:]]
        marked = agreement("If the key already exists, the call fails.", findings, vocabulary(findings))
        assert marked.status == "contradicted" and "accepted when `key` names a key that already exists" in marked.note

    def test_a_failure_elsewhere_contradicts_nothing(self) -> None:
        """A clause saying what a tool does is not disproved by a failure on another condition."""
        marked = agreement("Values are replaced when the key exists.", self.FINDINGS, vocabulary(self.FINDINGS))
        assert marked.status == "documented"

    def test_one_shared_word_verifies_nothing(self) -> None:
        """"If SFTP is required" and "missing required key" share one rare word: not the same thing, so the clause
        stays documented however rare the word."""
        findings = [boundary("`outputs` holds one item with no fields", "Item 0 is missing required key 'x'"),
                    *(boundary(f"`value` is too large ({n} MB)", "Value too large") for n in range(8))]
        marked = agreement("ConnectionError If SFTP is required but unavailable.", findings, vocabulary(findings))
        assert vocabulary(findings)["requir"] >= 2.0 and marked.status == "documented"

    def test_unrelated_findings_leave_it_documented(self) -> None:
        """Findings about something else mark nothing."""
        marked = agreement("Keys must be at most 64 characters.", self.FINDINGS, vocabulary(self.FINDINGS))
        assert marked.status == "documented" and marked.entry_id is None


class TestServed:
    def test_a_verified_clause_is_served_with_the_answer_that_verified_it(self) -> None:
        """Guidance keeps the clause, marks it verified, and quotes the server's answer beside it."""
        from toolatlas.guidance import Atlas, AtlasView

        from .conftest import node

        put = node("kv", "put", DESCRIPTION, ("key", "value"), read_only=False)
        atlas = Atlas(AtlasView([put], TestAgreement.FINDINGS, [], []))
        guidance = atlas.guide("Store the value 3 under the key retries", docs_ratio=None)
        [clause] = [d for d in guidance.tools[0].documented if d.text.startswith("If the key already exists")]
        assert clause.status == "verified" and clause.note == "Key already exists: …"
        assert "(verified: “Key already exists: …”)" in guidance.to_text()


def packer(password: str, level: str = "Compression level, 0 to 9.") -> ToolNode:
    """An archiver whose arguments' own descriptions say what their values meet (the tool's description does not)."""
    return ToolNode(id="packer.pack", server="packer", tool="pack", schema_hash="h",
                    description="Pack files into an archive.",
                    input_schema={"type": "object", "required": ["files"], "properties": {
                        "files": {"type": "array", "items": {"type": "string"}, "description": "Files to pack."},
                        "password": {"type": "string", "description": password},
                        "level": {"type": "integer", "description": level},
                        "output": {"type": "string", "description": "Where to write it. Defaults to pack.zip if omitted."},
                    }})


class TestArgumentClauses:
    def test_rules_an_argument_description_states_are_kept(self) -> None:
        """An argument's sentences with an operative word are kept, plain ones and what a left-out value defaults to
        are not; a description in a script the vocabulary cannot read is kept whole; arguments an object wraps in
        ``$defs`` are read through it."""
        from toolatlas.guidance.clauses import argument_clauses

        assert argument_clauses(packer("Only ZIP archives take a password.").input_schema) == [
            ("password", "Only ZIP archives take a password.")]
        assert argument_clauses(packer("压缩密码（仅支持 ZIP 和 7Z 格式）").input_schema) == [
            ("password", "压缩密码（仅支持 ZIP 和 7Z 格式）")]
        wrapped = {"$defs": {"In": {"type": "object", "properties": {
            "session_id": {"type": "string", "description": "Session ID."},
            "code": {"type": "string", "description": "Python code. Imports of os are not allowed."}}}},
            "properties": {"params": {"$ref": "#/$defs/In"}}}
        assert argument_clauses(wrapped) == [("code", "Imports of os are not allowed.")]

    def test_what_the_schema_allows_is_a_rule_unless_the_kept_words_say_it(self) -> None:
        """A range, a set of values (through ``anyOf`` and ``$ref``) or a length the schema sets is a rule of its
        argument; a description whose kept clause already names its values, or a lower bound alone, adds none."""
        from toolatlas.guidance.clauses import argument_clauses

        schema = {"$defs": {"Status": {"enum": ["solved", "struggled", "gave_up"], "type": "string"}},
                  "properties": {
                      "status": {"$ref": "#/$defs/Status"},
                      "confidence": {"anyOf": [{"type": "integer", "minimum": 1, "maximum": 5}, {"type": "null"}],
                                     "description": "Self-rated confidence, 1 (low) to 5 (high)."},
                      "level": {"type": "integer", "minimum": 0, "maximum": 9,
                                "description": "Compression level, must be 0 to 9."},
                      "limit": {"type": "integer", "minimum": 1},
                      "name": {"type": "string", "maxLength": 200}}}
        assert argument_clauses(schema) == [
            ("status", "its schema allows only solved, struggled or gave_up"),
            ("confidence", "its schema allows 1 to 5"),  # the description says it, in words no clause keeps
            ("level", "Compression level, must be 0 to 9."),
            ("name", "its schema allows at most 200 characters")]

    def test_the_rule_of_an_argument_the_task_gives_a_value_is_served_first(self) -> None:
        """"protected with the password 'q3'": the `password` argument's rule is the tool's first documented clause;
        a task that gives no password is not told it."""
        from toolatlas.guidance import Atlas, AtlasView

        atlas = Atlas(AtlasView([packer("Only ZIP archives take a password.")], [], [], []))
        guidance = atlas.guide("Pack report.txt into report.tar.gz, protected with the password 'q3'.", docs_ratio=None)
        assert guidance.tools[0].documented[0].text == "`password`: Only ZIP archives take a password."
        assert "Only ZIP archives take a password" in guidance.to_text()
        plain = atlas.guide("Pack report.txt into report.tar.gz.", docs_ratio=None)
        assert all("password" not in d.text for d in plain.tools[0].documented)

    def test_the_rule_of_an_argument_whose_declared_value_the_task_names_is_served_first(self) -> None:
        """"frames that begin with ATG": ``start_codons`` declares ``atg-only``, so its rule (the values it allows)
        is the tool's first documented clause; a task that names no member is not told it, and a filler word ("both")
        names no member."""
        from toolatlas.graph.models import ToolNode
        from toolatlas.guidance import Atlas, AtlasView
        from toolatlas.guidance.implied import names_member

        schema = {"type": "object", "required": ["sequence"], "properties": {
            "sequence": {"type": "string", "description": "A DNA sequence, or one FASTA record."},
            "start_codons": {"type": "string", "enum": ["table-starts", "atg-only"]}}}
        orfs = ToolNode(id="dna.enumerate_orfs", server="dna", tool="enumerate_orfs", schema_hash="h",
                        description="Enumerate candidate ORFs across all six reading frames. Results are bounded.",
                        input_schema=schema)
        atlas = Atlas(AtlasView([orfs], [], [], []))
        task = "List the open reading frames that begin with ATG in ATGGCTAGCAAAGGAGAAGAACTTTTCACTGGAGTTGTCC."
        assert atlas.guide(task, docs_ratio=None).tools[0].documented[0].text == (
            "`start_codons`: its schema allows only table-starts or atg-only")
        plain = atlas.guide("List the open reading frames in ATGGCTAGCAAAGGAGAAGAACTTTTCACTGGAGTTGTCC.",
                            docs_ratio=None)
        assert all("start_codons" not in d.text for d in plain.tools[0].documented)
        assert names_member("convert it to Celsius", ("celsius", "fahrenheit"))
        assert not names_member("scan both strands", ("forward", "reverse", "both"))
