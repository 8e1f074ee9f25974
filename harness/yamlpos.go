package harness

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// nodeIndex maps the field paths of a YAML document ("grid.pv.step",
// "kernels[0].params.length") to their nodes, so that errors found after
// decoding still point at a line.
type nodeIndex struct {
	entries []nodeEntry
	byPath  map[string]int
}

type nodeEntry struct {
	path  string
	key   *yaml.Node // nil for sequence items
	value *yaml.Node
}

func newNodeIndex(root *yaml.Node) *nodeIndex {
	x := &nodeIndex{byPath: make(map[string]int)}
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	x.walk("", n)
	return x
}

func (x *nodeIndex) add(path string, key, value *yaml.Node) {
	if _, dup := x.byPath[path]; !dup {
		x.byPath[path] = len(x.entries)
	}
	x.entries = append(x.entries, nodeEntry{path, key, value})
}

func (x *nodeIndex) walk(prefix string, n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value
			if prefix != "" {
				p = prefix + "." + k.Value
			}
			x.add(p, k, v)
			x.walk(p, v)
		}
	case yaml.SequenceNode:
		for i, v := range n.Content {
			p := fmt.Sprintf("%s[%d]", prefix, i)
			x.add(p, nil, v)
			x.walk(p, v)
		}
	}
}

// node returns the value node at path, or nil.
func (x *nodeIndex) node(path string) *yaml.Node {
	if x == nil {
		return nil
	}
	if i, ok := x.byPath[path]; ok {
		return x.entries[i].value
	}
	return nil
}

// line returns the line of path, or of its nearest ancestor in the
// document, or 0.
func (x *nodeIndex) line(path string) int {
	if x == nil {
		return 0
	}
	for path != "" {
		if i, ok := x.byPath[path]; ok {
			e := x.entries[i]
			if e.key != nil {
				return e.key.Line
			}
			return e.value.Line
		}
		cut := max(strings.LastIndexByte(path, '.'), strings.LastIndexByte(path, '['))
		if cut < 0 {
			break
		}
		path = path[:cut]
	}
	return 0
}

var (
	reLine      = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	reUnknown   = regexp.MustCompile(`^field (\S+) not found in type (\S+)$`)
	reUnmarshal = regexp.MustCompile("^cannot unmarshal !!(\\w+)(?: `(.*)`)? into (.+)$")
	reDupKey    = regexp.MustCompile(`^mapping key "(.*)" already defined at line (\d+)$`)
)

// yamlError turns a yaml.v3 error into a one-line SpecError with the field
// path where the index can tell it.
func yamlError(file string, idx *nodeIndex, err error) error {
	var msgs []string
	if te, ok := err.(*yaml.TypeError); ok {
		msgs = te.Errors
	} else {
		msgs = []string{strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	e := yamlMessage(file, idx, msgs[0])
	if len(msgs) > 1 {
		e.Reason += fmt.Sprintf(" (and %d more errors)", len(msgs)-1)
	}
	return e
}

func yamlMessage(file string, idx *nodeIndex, msg string) *SpecError {
	e := &SpecError{File: file, Reason: msg}
	m := reLine.FindStringSubmatch(msg)
	if m == nil {
		e.Reason = "YAML: " + msg
		return e
	}
	e.Line, _ = strconv.Atoi(m[1])
	rest := m[2]
	if idx == nil {
		e.Reason = "YAML syntax: " + rest
		return e
	}
	switch {
	case reUnknown.MatchString(rest):
		u := reUnknown.FindStringSubmatch(rest)
		e.Field = idx.find(e.Line, func(en nodeEntry) bool {
			return en.key != nil && en.key.Line == e.Line && en.key.Value == u[1]
		})
		e.Reason = "unknown key"
		if known, ok := rawTypeKeys()[u[2]]; ok {
			e.Reason += " (known: " + strings.Join(known, ", ") + ")"
		}
	case reUnmarshal.MatchString(rest):
		u := reUnmarshal.FindStringSubmatch(rest)
		kind := map[string]yaml.Kind{"seq": yaml.SequenceNode, "map": yaml.MappingNode}[u[1]]
		if kind == 0 {
			kind = yaml.ScalarNode
		}
		e.Field = idx.find(e.Line, func(en nodeEntry) bool {
			return en.value.Line == e.Line && en.value.Kind == kind && (u[2] == "" || en.value.Value == u[2])
		})
		got := map[string]string{"seq": "a list", "map": "a mapping", "str": "text", "int": "an integer",
			"float": "a number", "bool": "a boolean", "null": "null"}[u[1]]
		if got == "" {
			got = "!!" + u[1]
		}
		if u[2] != "" {
			got += " " + strconv.Quote(u[2])
		}
		e.Reason = fmt.Sprintf("want %s, got %s", goTypeWant(u[3]), got)
	case reDupKey.MatchString(rest):
		u := reDupKey.FindStringSubmatch(rest)
		e.Field = idx.find(e.Line, func(en nodeEntry) bool {
			return en.key != nil && en.key.Line == e.Line && en.key.Value == u[1]
		})
		e.Reason = fmt.Sprintf("key %q given twice (first at line %s)", u[1], u[2])
	default:
		e.Field = idx.find(e.Line, func(nodeEntry) bool { return false })
		e.Reason = rest
	}
	return e
}

// find returns the path of the first entry that matches, or of the first
// entry on line, or "".
func (x *nodeIndex) find(line int, match func(nodeEntry) bool) string {
	for _, en := range x.entries {
		if match(en) {
			return en.path
		}
	}
	for _, en := range x.entries {
		if en.key != nil && en.key.Line == line {
			return en.path
		}
	}
	return ""
}

// goTypeWant names what a Go type in a yaml.v3 message expects, in the
// words of a spec author.
func goTypeWant(t string) string {
	t = strings.TrimPrefix(t, "*")
	switch {
	case t == "uint64":
		return "an unsigned integer"
	case t == "int":
		return "an integer"
	case t == "string":
		return "a single value"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "harness.raw"):
		return "a mapping"
	}
	return t
}
