"""The full three-way merge of one ledger file (``merge.merge_ledger`` when its fast path
does not apply).

Each side is read into a *skeleton* (every line that is not an item row, with a
token where each table's rows go) and row slots. Rows are planned by ID
(``_Plan``: cells to replace, rows to add, retirements, renumberings), the
skeletons merged by git's text merge when both sides changed them, and the bytes
assembled from OURS' lines. The result must parse and pass the guard against
both parents, or the rows concerned become conflicts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..errors import LedgerParseError
from ..guard.excuses import excuse_merge
from ..ledgers import (
    Context,
    Ledger,
    normalize,
    parse_with,
    render_row,
)
from ..ledgers.model import record_cells as _cells
from ..ledgers.model import record_content as _content
from ..ledgers.rowedit import rewrite_cells, split_cells
from ..typecheck import TYPE_CHECKING
from .result import Allocator, Conflict, MergeResult, MergeText
from .sides import (
    FRONT,
    MARK,
    NEXT,
    REVISION,
    Side,
    Slot,
    front_index,
    front_line,
    read_side,
    section_of,
)

if TYPE_CHECKING:
    from ..ledgers.model import Record, Retired


def no_text_merge(ours: bytes, base: bytes, theirs: bytes) -> tuple[bytes, bool]:
    """The default ``merge_text``: refuses, since only git can merge prose."""
    raise RuntimeError("both sides changed the prose: pass merge_text (git_changes.merge_file)")


class Merger:
    def __init__(
        self,
        kind: str,
        ctx: Context,
        merge_text: MergeText,
        marker_size: int,
        labels: tuple[str, str, str],
    ) -> None:
        self.kind = kind
        self.ctx = ctx
        self.merge_text = merge_text
        self.markers = ("<" * marker_size, "=" * marker_size, ">" * marker_size)
        self.labels = labels
        self.conflicts: list[Conflict] = []
        self.notes: list[str] = []
        # what the result is judged against when the inputs were rewritten to resolve a
        # conflict (``merge.resolve``): the real (base, ours, theirs) ledgers
        self.judge: tuple[Ledger | None, Ledger, Ledger] | None = None

    def run(self, base: bytes, ours: bytes, theirs: bytes) -> MergeResult:
        raw = {"base": base, "ours": ours, "theirs": theirs}
        if any(b"\x1e" in data for data in raw.values()):
            return self._whole_file(
                raw,
                [
                    Conflict(
                        "unsupported_character",
                        None,
                        "a ledger holds the control character U+001E; merge it by hand",
                    )
                ],
            )
        sides: dict[str, Side | None] = {}
        broken: list[Conflict] = []
        for name, data in raw.items():
            if name == "base" and not data.strip():
                sides[name] = None  # no common ancestor (added on both sides)
                continue
            try:
                sides[name] = read_side(self.kind, self.ctx, name, data)
            except LedgerParseError as exc:
                broken.append(
                    Conflict(
                        "side_unparseable", exc.item_id, f"the {name} side cannot be parsed: {exc}"
                    )
                )
        if broken:
            return self._whole_file(raw, broken)
        o, t = sides["ours"], sides["theirs"]
        assert o is not None and t is not None
        b = sides["base"]
        plan = self._plan(b, o, t)
        data = self._assemble(b, o, t, plan, {})
        if self.conflicts:
            return MergeResult(data, self.conflicts, self.notes, plan.renamed)
        problems = self._validate(data, b, o, t)
        if problems:
            marked = {c.item_id: c for c in problems if c.item_id}
            self.conflicts.extend(problems)
            if len(marked) < len(problems):
                return self._whole_file(raw, [])
            data = self._assemble(b, o, t, plan, marked)
        return MergeResult(data, self.conflicts, self.notes, plan.renamed)

    def _plan(self, b: Side | None, o: Side, t: Side) -> _Plan:
        plan = _Plan()
        self._plan_items(b.items if b else {}, o, t, plan)
        self._plan_retired(b.retired if b else {}, o, t, plan)
        if self.kind == "task":
            self._check_phase_order(b, o, t)
        self._merge_next_action(b, o, t, plan)
        self._merge_front_matter(b, o, t, plan)
        return plan

    def _plan_items(
        self, base_items: Mapping[str, tuple[str, Record]], o: Side, t: Side, plan: _Plan
    ) -> None:
        """Theirs' rows against ours by ID: kept, merged, added, renumbered or a conflict."""
        fresh = Allocator(set(base_items) | set(o.items) | set(t.items))
        for section, records in t.ledger.items.items():
            for record in records:
                tid = record.id
                if tid not in o.items:
                    if tid in base_items:
                        self._conflict("row_deleted", tid, "ours deleted this row, theirs kept it")
                    else:
                        plan.added.setdefault(section, []).append((tid, record))
                    continue
                o_section, o_record = o.items[tid]
                if o_section != section:
                    self._conflict(
                        "section_conflict",
                        tid,
                        f"in {o_section!r} on ours, in {section!r} on theirs",
                    )
                elif tid in base_items:
                    b_record = base_items[tid][1]
                    if o_record[2:] != record[2:] and record[2:] != b_record[2:]:
                        self._merge_row(section, b_record, o_record, record, plan)
                    # else the fast path: one side left the row as it was
                elif _content(o_record) != _content(record):
                    new = fresh.renumber(tid)
                    plan.renamed[tid] = new
                    plan.added.setdefault(section, []).append((new, record))
                    self.notes.append(
                        f"{self.ctx.path}: {tid} was added on both sides with different "
                        f"content: kept ours as {tid}, theirs' row is now {new}"
                    )
        for oid in o.items:
            if oid in base_items and oid not in t.items:
                self._conflict("row_deleted", oid, "theirs deleted this row, ours kept it")

    def _plan_retired(
        self, base_retired: Mapping[str, Retired], o: Side, t: Side, plan: _Plan
    ) -> None:
        """Theirs' Retired rows (under their renumbered IDs) against ours."""
        for row in t.ledger.retired:
            rid = plan.renamed.get(row.id, row.id)
            if rid in o.retired:
                if _content(o.retired[rid]) != _content(row):
                    self.notes.append(
                        f"{self.ctx.path}: {rid} was retired on both sides; kept ours' reason"
                    )
                continue
            if rid in base_retired:
                self._conflict("unretired", rid, "ours removed this item's Retired row")
                continue
            plan.retired.append((rid, row))

    def _merge_row(self, section: str, b: Record, o: Record, t: Record, plan: _Plan) -> None:
        from ..guard.rules import RULES, level_code

        rule = RULES[self.kind].get(section)
        bc, oc, tc = _cells(b), _cells(o), _cells(t)
        merged = dict(oc)
        for column in list(oc) + [c for c in tc if c not in oc]:
            if column == "id":
                continue
            bv, ov, tv = bc.get(column, ""), oc.get(column, ""), tc.get(column, "")
            if ov == tv or tv == bv:
                continue
            if ov == bv:
                merged[column] = tv
                continue
            if column == "status" and rule is not None:
                if (ov, tv) in rule.moves:  # theirs went further along an allowed move
                    merged[column] = tv
                    continue
                if (tv, ov) in rule.moves:
                    continue
            if column == "level" and rule is not None and rule.level:
                if level_code(ov, tv) is None:
                    merged[column] = tv
                    continue
                if level_code(tv, ov) is None:
                    continue
            code = {"decisions": "decision_conflict", "external writes": "write_conflict"}.get(
                section, f"{column}_conflict" if column in ("status", "level") else "cell_conflict"
            )
            self._conflict(
                code, o.id, f"{section} {column!r}: ours {ov!r}, theirs {tv!r} (base {bv!r})"
            )
            return
        if merged != oc:
            plan.replace[o.id] = merged

    def _check_phase_order(self, b: Side | None, o: Side, t: Side) -> None:
        ours = [r.id for r in o.ledger.section("phases")]
        theirs = [r.id for r in t.ledger.section("phases")]
        shared = set(ours) & set(theirs)
        if b is not None:  # a phase new on both sides is renumbered, not ordered
            shared &= set(b.items)
        common_o = [i for i in ours if i in shared]
        common_t = [i for i in theirs if i in shared]
        if common_o != common_t:
            self._conflict(
                "phase_order_conflict",
                None,
                "both sides ordered the phases differently: "
                + ", ".join(common_o)
                + " vs "
                + ", ".join(common_t),
            )

    def _merge_next_action(self, b: Side | None, o: Side, t: Side, plan: _Plan) -> None:
        def text(side: Side | None) -> str | None:
            found = side.ledger.next_action if side else None
            return normalize(found.text) if found else None

        bv, ov, tv = text(b), text(o), text(t)
        if ov == tv or tv == bv:
            return
        if ov == bv:
            plan.next_action = "theirs"
            return
        plan.next_action = "conflict"
        self._conflict(
            "next_action_conflict", None, f"two different next actions: ours {ov!r}, theirs {tv!r}"
        )

    def _merge_front_matter(self, b: Side | None, o: Side, t: Side, plan: _Plan) -> None:
        keys = [
            k
            for k in list(o.ledger.meta) + [k for k in t.ledger.meta if k not in o.ledger.meta]
            if k != "revision"
        ]
        for key in keys:
            bv = str(b.ledger.meta.get(key, "")) if b else ""
            ov, tv = str(o.ledger.meta.get(key, "")), str(t.ledger.meta.get(key, ""))
            if ov == tv or tv == bv:
                continue
            if ov == bv:
                plan.meta_from_theirs.append(key)
                continue
            self._conflict(
                "frontmatter_conflict", None, f"front matter {key!r}: ours {ov!r}, theirs {tv!r}"
            )
        if self.kind == "task":
            revisions = [r for r in (o.ledger.revision, t.ledger.revision) if r is not None]
            plan.revision = max(revisions) + 1 if revisions else None

    def _skeleton(self, b: Side | None, o: Side, t: Side) -> list[tuple[str, str, int]]:
        """Merged skeleton as (text, eol, index into ours' lines or -1)."""
        base = b.skeleton if b else ()
        if t.skeleton == base or t.skeleton == o.skeleton:
            return [
                (line, o.eols[src] if src >= 0 else o.newline, src)
                for line, src in zip(o.skeleton, o.source, strict=True)
            ]
        if o.skeleton == base:
            return [(line, o.newline, -1) for line in t.skeleton]

        def blob(lines: Iterable[str]) -> bytes:
            return "".join(line + "\n" for line in lines).encode("utf-8")

        merged, clean = self.merge_text(blob(o.skeleton), blob(base), blob(t.skeleton))
        if not clean:
            self._conflict(
                "prose_conflict",
                None,
                "both sides changed the same prose lines (git merge-file markers)",
            )
        text = merged.decode("utf-8")
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return [(line, o.newline, -1) for line in lines]

    def _assemble(
        self, b: Side | None, o: Side, t: Side, plan: _Plan, marked: Mapping[str, Conflict]
    ) -> bytes:
        skeleton = self._skeleton(b, o, t)
        tokens = [line for line, _, _ in skeleton if line.startswith(MARK + "rows ")]
        target = {section_of(token): token for token in tokens}  # the last table wins
        conflicted = {c.item_id for c in self.conflicts if c.item_id} | set(marked)
        out: list[tuple[str, str]] = []
        done: set[str] = set()
        for line, eol, _ in skeleton:
            if not line.startswith(MARK):
                out.append((line, eol))
            elif line in done:
                continue
            elif line == FRONT:
                done.add(line)
                out.extend(self._front_lines(o, t, plan))
            elif line == NEXT:
                done.add(line)
                out.extend(self._next_lines(o, t, plan))
            else:
                done.add(line)
                section = section_of(line)
                out.extend(
                    self._rows(o, t, plan, line, section, target.get(section) == line, conflicted)
                )
        for section, added in plan.added.items():
            if added and section not in target:
                self._conflict(
                    "section_missing",
                    added[0][0],
                    f"theirs added {section} rows but the merged file has no {section} table",
                )
        if plan.retired and "retired" not in target:
            self._conflict(
                "section_missing",
                plan.retired[0][0],
                "theirs retired items but the merged file has no Retired table",
            )
        final = o.eols[-1] if o.eols else "\n"
        fixed = [(line, eol or o.newline) for line, eol in out[:-1]]
        if out:
            fixed.append((out[-1][0], final if final else ""))
        body = "".join(line + eol for line, eol in fixed)
        return (b"\xef\xbb\xbf" if o.bom else b"") + body.encode("utf-8")

    def _block(self, ours: list[str], theirs: list[str], newline: str) -> list[tuple[str, str]]:
        left, mid, right = self.markers
        lines = [f"{left} {self.labels[0]}", *ours, mid, *theirs, f"{right} {self.labels[2]}"]
        return [(line, newline) for line in lines]

    def _front_lines(self, o: Side, t: Side, plan: _Plan) -> list[tuple[str, str]]:
        side = o if o.front else t
        lines = list(side.lines[: side.front])
        eols = [side.eols[i] if side is o else o.newline for i in range(side.front)]
        if side is o:
            for key in plan.meta_from_theirs:
                theirs_line = front_line(t, key)
                index = front_index(lines, key)
                if theirs_line is None:
                    continue
                if index is None:
                    lines.insert(len(lines) - 1, theirs_line)
                    eols.insert(len(eols) - 1, o.newline)
                else:
                    lines[index] = theirs_line
        if any(c.code == "frontmatter_conflict" for c in self.conflicts):
            block = self._block(list(o.lines[: o.front]), list(t.lines[: t.front]), o.newline)
            return block
        if plan.revision is not None:
            for index, line in enumerate(lines):
                match = REVISION.match(line)
                if match:
                    lines[index] = match.group(1) + str(plan.revision) + match.group(3)
                    break
        return list(zip(lines, eols, strict=True))

    def _next_lines(self, o: Side, t: Side, plan: _Plan) -> list[tuple[str, str]]:
        mine = o.ledger.next_action
        other = t.ledger.next_action
        if plan.next_action == "conflict":
            return self._block(
                [o.lines[mine.line - 1]] if mine else [],
                [t.lines[other.line - 1]] if other else [],
                o.newline,
            )
        if plan.next_action == "theirs" or mine is None:
            return [(t.lines[other.line - 1], o.newline)] if other else []
        return [(o.lines[mine.line - 1], o.eols[mine.line - 1])]

    def _rows(
        self,
        o: Side,
        t: Side,
        plan: _Plan,
        token: str,
        section: str,
        is_target: bool,
        conflicted: set[str],
    ) -> list[tuple[str, str]]:
        retired = section == "retired"
        slot = o.slots.get(token) or t.slots[token]
        groups: list[list[tuple[str, str]]] = []  # one group of lines per row
        placed: list[str] = []  # the row ID of each group (phases need positions)
        if token in o.slots:
            for number in slot.rows:
                line, eol = o.lines[number - 1], o.eols[number - 1]
                item_id = o.id_at[number]
                if not retired and item_id in conflicted:
                    groups.append(self._conflict_rows(o, t, item_id, retired))
                elif not retired and item_id in plan.replace:
                    groups.append(
                        [
                            (
                                self._rewrite(
                                    line, slot, item_id, plan.replace[item_id], o.items[item_id][1]
                                ),
                                eol,
                            )
                        ]
                    )
                else:
                    groups.append([(line, eol)])
                placed.append(item_id)
        if is_target:
            additions: Sequence[tuple[str, Record]] = (
                plan.retired if retired else plan.added.get(section, [])
            )
            for new_id, record in additions:
                rendered = self._render(t, record, new_id, slot, retired, plan)
                if rendered is None:
                    continue
                group = (
                    self._block([], [rendered], o.newline)
                    if new_id in conflicted and not retired
                    else [(rendered, o.newline)]
                )
                at = (
                    self._phase_position(t, record.id, placed, plan)
                    if section == "phases"
                    else len(placed)
                )
                groups.insert(at, group)
                placed.insert(at, new_id)
        return [line for group in groups for line in group]

    def _conflict_rows(
        self, o: Side, t: Side, item_id: str, retired: bool
    ) -> list[tuple[str, str]]:
        mine = [o.line_of(item_id, retired)]
        has = item_id in (t.retired if retired else t.items)
        other = [t.line_of(item_id, retired)] if has else []
        return self._block(mine, other, o.newline)

    def _phase_position(self, t: Side, theirs_id: str, placed: list[str], plan: _Plan) -> int:
        """After the row that precedes it in theirs, and after ours-only rows that follow."""
        order = [r.id for r in t.ledger.section("phases")]
        index = order.index(theirs_id)
        at = 0
        for previous in reversed(order[:index]):
            name = plan.renamed.get(previous, previous)
            if name in placed:
                at = placed.index(name) + 1
                break
        theirs_ids = {plan.renamed.get(i, i) for i in order}
        while at < len(placed) and placed[at] not in theirs_ids:
            at += 1
        return at

    def _rewrite(
        self, line: str, slot: Slot, item_id: str, cells: Mapping[str, str], record: Record
    ) -> str:
        old = _cells(record)
        updates: dict[int, str] = {}
        for column, value in cells.items():
            if value == old.get(column, ""):
                continue
            if column not in slot.header:
                self._conflict(
                    "column_missing",
                    item_id,
                    f"theirs set {column!r}, which ours' table has no column for",
                )
                continue
            updates[slot.header.index(column)] = value
        return rewrite_cells(line, updates)

    def _render(
        self, t: Side, record: Record, new_id: str, slot: Slot, retired: bool, plan: _Plan
    ) -> str | None:
        key = f"retired:{record.id}" if retired else record.id
        source = t.slot_of[key]
        cells = _cells(record)
        cells["id"] = new_id
        if retired and cells.get("replaced by") in plan.renamed:
            cells["replaced by"] = plan.renamed[cells["replaced by"]]
        raw = t.lines[record.line - 1]
        if source.header == slot.header:
            current = split_cells(raw)
            updates = {
                slot.header.index(c): v
                for c, v in cells.items()
                if c in slot.header and v != normalize(current[slot.header.index(c)])
            }
            return rewrite_cells(raw, updates) if updates else raw
        lost = [c for c, v in cells.items() if v and c not in slot.header]
        if lost:
            self._conflict(
                "column_missing",
                new_id,
                f"theirs' row has {', '.join(lost)}, which ours' table lacks",
            )
            return None
        return render_row([cells.get(h, "") for h in slot.header])

    def _validate(self, data: bytes, b: Side | None, o: Side, t: Side) -> list[Conflict]:
        from ..guard.conflicts import single_value_findings
        from ..guard.rules import check_ledger

        try:
            merged = parse_with(self.kind, data, self.ctx)
        except LedgerParseError as exc:
            return [Conflict("merge_unparseable", None, f"the merged file would not parse: {exc}")]
        base, ours, theirs = self.judge or (b.ledger if b else None, o.ledger, t.ledger)
        bases = [base] if base is not None else []
        out: list[Conflict] = []
        for name, side, other in (("ours", ours, theirs), ("theirs", theirs, ours)):
            found = check_ledger(self.kind, side, merged)
            found = excuse_merge(found, side, merged, [other], bases)
            out.extend(
                Conflict("guard_" + v.code, v.item_id, f"against {name}: {v.message}")
                for v in found
            )
        out.extend(
            Conflict("guard_" + v.code, v.item_id, v.message)
            for v in single_value_findings(merged, [ours, theirs], bases)
        )
        return out

    def _whole_file(self, raw: Mapping[str, bytes], found: list[Conflict]) -> MergeResult:
        """Git's textual merge with markers; wrapped whole when git finds it clean."""
        self.conflicts.extend(found)
        try:
            data, clean = self.merge_text(raw["ours"], raw["base"], raw["theirs"])
        except RuntimeError:
            data, clean = b"", True
        if clean:
            left, mid, right = self.markers
            ours, theirs = raw["ours"], raw["theirs"]
            data = (
                f"{left} {self.labels[0]}\n".encode()
                + ours
                + (b"" if ours.endswith(b"\n") or not ours else b"\n")
                + mid.encode()
                + b"\n"
                + theirs
                + (b"" if theirs.endswith(b"\n") or not theirs else b"\n")
                + f"{right} {self.labels[2]}\n".encode()
            )
        return MergeResult(data, self.conflicts, self.notes, {})

    def _conflict(self, code: str, item_id: str | None, message: str) -> None:
        self.conflicts.append(Conflict(code, item_id, message))


class _Plan:
    """What the row merge decided, before any byte is written."""

    def __init__(self) -> None:
        self.replace: dict[str, dict[str, str]] = {}  # ours' row id -> merged cells
        self.added: dict[str, list[tuple[str, Record]]] = {}  # section -> (id, theirs' record)
        self.retired: list[tuple[str, Retired]] = []  # (id, theirs' Retired row)
        self.renamed: dict[str, str] = {}
        self.next_action = "ours"  # ours | theirs | conflict
        self.meta_from_theirs: list[str] = []
        self.revision: int | None = None
