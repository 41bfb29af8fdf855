package report

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	pprofile "github.com/google/pprof/profile"
)

// sampleStream gives a profile's samples one at a time: the same Sample
// value may come back changed, so a reader keeping one copies it. A run
// at full depth has millions of samples of dozens of frames each, which
// pprof's own encoder would hold several times over (gigabytes for a
// Python run); writeProto writes them as they come.
type sampleStream func(emit func(s *pprofile.Sample))

// materialize appends the stream's samples to out.Sample, each a copy.
func (st sampleStream) materialize(out *pprofile.Profile) {
	st(func(s *pprofile.Sample) {
		c := *s
		c.Location = slices.Clone(s.Location)
		c.Value = slices.Clone(s.Value)
		out.Sample = append(out.Sample, &c)
	})
}

// Field numbers of profile.proto (github.com/google/pprof/proto).
const (
	pbProfileSampleType        = 1
	pbProfileSample            = 2
	pbProfileMapping           = 3
	pbProfileLocation          = 4
	pbProfileFunction          = 5
	pbProfileStringTable       = 6
	pbProfilePeriodType        = 11
	pbProfilePeriod            = 12
	pbProfileComment           = 13
	pbProfileDefaultSampleType = 14

	pbValueTypeType = 1
	pbValueTypeUnit = 2

	pbSampleLocationID = 1
	pbSampleValue      = 2
	pbSampleLabel      = 3

	pbLabelKey = 1
	pbLabelStr = 2
	pbLabelNum = 3

	pbMappingID              = 1
	pbMappingStart           = 2
	pbMappingLimit           = 3
	pbMappingOffset          = 4
	pbMappingFilename        = 5
	pbMappingBuildID         = 6
	pbMappingHasFunctions    = 7
	pbMappingHasFilenames    = 8
	pbMappingHasLineNumbers  = 9
	pbMappingHasInlineFrames = 10

	pbLocationID        = 1
	pbLocationMappingID = 2
	pbLocationAddress   = 3
	pbLocationLine      = 4

	pbLineFunctionID = 1
	pbLineLine       = 2

	pbFunctionID         = 1
	pbFunctionName       = 2
	pbFunctionSystemName = 3
	pbFunctionFilename   = 4
	pbFunctionStartLine  = 5
)

// pbMessage builds one protobuf message.
type pbMessage struct{ b []byte }

func (m *pbMessage) key(field, wire int) {
	m.b = binary.AppendUvarint(m.b, uint64(field<<3|wire))
}

// uint writes a varint field, left out when zero (proto3's default).
func (m *pbMessage) uint(field int, v uint64) {
	if v != 0 {
		m.key(field, 0)
		m.b = binary.AppendUvarint(m.b, v)
	}
}

func (m *pbMessage) int(field int, v int64) { m.uint(field, uint64(v)) }

func (m *pbMessage) bool(field int, v bool) {
	if v {
		m.uint(field, 1)
	}
}

// packed writes a packed repeated varint field.
func (m *pbMessage) packed(field int, vs []uint64) {
	if len(vs) == 0 {
		return
	}
	n := 0
	for _, v := range vs {
		n += uvarintLen(v)
	}
	m.key(field, 2)
	m.b = binary.AppendUvarint(m.b, uint64(n))
	for _, v := range vs {
		m.b = binary.AppendUvarint(m.b, v)
	}
}

// bytes writes a length-delimited field (a string, a message).
func (m *pbMessage) bytes(field int, b []byte) {
	m.key(field, 2)
	m.b = binary.AppendUvarint(m.b, uint64(len(b)))
	m.b = append(m.b, b...)
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// pbStrings is a profile's string table, built as the strings come.
type pbStrings struct {
	index map[string]int64
	list  []string
}

func newPbStrings() *pbStrings {
	return &pbStrings{index: map[string]int64{"": 0}, list: []string{""}}
}

func (t *pbStrings) of(s string) int64 {
	if i, ok := t.index[s]; ok {
		return i
	}
	i := int64(len(t.list))
	t.index[s] = i
	t.list = append(t.list, s)
	return i
}

// writeProto writes out, its samples taken from samples instead of
// out.Sample, as a gzipped profile.proto, each sample encoded and written
// as it comes. It writes what pprof's own encoder writes for the fields
// icount sets; the samples first and the string table last, which
// protobuf's order-free fields allow.
func writeProto(w io.Writer, out *pprofile.Profile, samples sampleStream) error {
	zw, err := gzip.NewWriterLevel(w, gzip.DefaultCompression)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(zw, 1<<16)
	strs := newPbStrings()
	var msg, sub pbMessage
	var top pbMessage // a top-level field of the Profile
	flush := func(field int, m *pbMessage) {
		top.b = top.b[:0]
		top.bytes(field, m.b)
		bw.Write(top.b)
	}
	valueType := func(field int, vt *pprofile.ValueType) {
		msg.b = msg.b[:0]
		msg.int(pbValueTypeType, strs.of(vt.Type))
		msg.int(pbValueTypeUnit, strs.of(vt.Unit))
		flush(field, &msg)
	}
	for _, vt := range out.SampleType {
		valueType(pbProfileSampleType, vt)
	}
	ids := make([]uint64, 0, 64)
	values := make([]uint64, 0, 2)
	var bad error
	samples(func(s *pprofile.Sample) {
		msg.b = msg.b[:0]
		ids = ids[:0]
		for _, l := range s.Location {
			ids = append(ids, l.ID)
		}
		msg.packed(pbSampleLocationID, ids)
		values = values[:0]
		for _, v := range s.Value {
			values = append(values, uint64(v))
		}
		msg.packed(pbSampleValue, values)
		if len(s.Value) != len(out.SampleType) && bad == nil {
			bad = fmt.Errorf("a sample has %d values for %d sample types", len(s.Value), len(out.SampleType))
		}
		for _, k := range sortedKeys(s.Label) {
			for _, v := range s.Label[k] {
				sub.b = sub.b[:0]
				sub.int(pbLabelKey, strs.of(k))
				sub.int(pbLabelStr, strs.of(v))
				msg.bytes(pbSampleLabel, sub.b)
			}
		}
		for _, k := range sortedKeys(s.NumLabel) {
			for _, v := range s.NumLabel[k] {
				sub.b = sub.b[:0]
				sub.int(pbLabelKey, strs.of(k))
				sub.int(pbLabelNum, v)
				msg.bytes(pbSampleLabel, sub.b)
			}
		}
		flush(pbProfileSample, &msg)
	})
	if bad != nil {
		return bad
	}
	for _, m := range out.Mapping {
		msg.b = msg.b[:0]
		msg.uint(pbMappingID, m.ID)
		msg.uint(pbMappingStart, m.Start)
		msg.uint(pbMappingLimit, m.Limit)
		msg.uint(pbMappingOffset, m.Offset)
		msg.int(pbMappingFilename, strs.of(m.File))
		msg.int(pbMappingBuildID, strs.of(m.BuildID))
		msg.bool(pbMappingHasFunctions, m.HasFunctions)
		msg.bool(pbMappingHasFilenames, m.HasFilenames)
		msg.bool(pbMappingHasLineNumbers, m.HasLineNumbers)
		msg.bool(pbMappingHasInlineFrames, m.HasInlineFrames)
		flush(pbProfileMapping, &msg)
	}
	for _, l := range out.Location {
		msg.b = msg.b[:0]
		msg.uint(pbLocationID, l.ID)
		if l.Mapping != nil {
			msg.uint(pbLocationMappingID, l.Mapping.ID)
		}
		msg.uint(pbLocationAddress, l.Address)
		for _, ln := range l.Line {
			sub.b = sub.b[:0]
			if ln.Function != nil {
				sub.uint(pbLineFunctionID, ln.Function.ID)
			}
			sub.int(pbLineLine, ln.Line)
			msg.bytes(pbLocationLine, sub.b)
		}
		flush(pbProfileLocation, &msg)
	}
	for _, f := range out.Function {
		msg.b = msg.b[:0]
		msg.uint(pbFunctionID, f.ID)
		msg.int(pbFunctionName, strs.of(f.Name))
		msg.int(pbFunctionSystemName, strs.of(f.SystemName))
		msg.int(pbFunctionFilename, strs.of(f.Filename))
		msg.int(pbFunctionStartLine, f.StartLine)
		flush(pbProfileFunction, &msg)
	}
	if out.PeriodType != nil {
		valueType(pbProfilePeriodType, out.PeriodType)
	}
	top.b = top.b[:0]
	top.int(pbProfilePeriod, out.Period)
	for _, c := range out.Comments {
		top.key(pbProfileComment, 0)
		top.b = binary.AppendUvarint(top.b, uint64(strs.of(c)))
	}
	top.int(pbProfileDefaultSampleType, strs.of(out.DefaultSampleType))
	bw.Write(top.b)
	for _, s := range strs.list {
		top.b = top.b[:0]
		top.bytes(pbProfileStringTable, []byte(s))
		bw.Write(top.b)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return zw.Close()
}

// sortedKeys are a label map's keys in order, as pprof's encoder writes
// them.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
