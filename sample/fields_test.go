package sample

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestFieldsRewrite replaces two columns by a function of their values and
// copies everything else byte for byte: quotes, CRLF, blank lines.
func TestFieldsRewrite(t *testing.T) {
	in := "a,x,\"b, c\",y\r\n\r\n1,\"2\",\"q \"\"u\"\"\",3\r\n4,5,z,6\r\n\r\n"
	f := Fields{
		Columns: []string{"x", "y"},
		Replace: func(lines []int, v [][]byte) ([]string, error) {
			return []string{string(v[1]) + "|" + string(v[0]), "l" + string(rune('0'+lines[0]))}, nil
		},
	}
	var out bytes.Buffer
	if err := f.Rewrite(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := "a,x,\"b, c\",y\r\n\r\n1,3|2,\"q \"\"u\"\"\",l3\r\n4,6|5,z,l4\r\n\r\n"
	if out.String() != want {
		t.Fatalf("got %q\nwant %q", out.String(), want)
	}
	out.Reset()
	f.Drop = []string{"b, c"}
	if err := f.Rewrite(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	if want := "a,x,y\r\n\r\n1,3|2,l3\r\n4,6|5,l4\r\n\r\n"; out.String() != want {
		t.Fatalf("with Drop: got %q\nwant %q", out.String(), want)
	}
	// A value that needs quotes is quoted.
	f.Drop = nil
	f.Replace = func([]int, [][]byte) ([]string, error) { return []string{"p,q", ""}, nil }
	out.Reset()
	if err := f.Rewrite(strings.NewReader("x,y\n1,2\n"), &out); err != nil {
		t.Fatal(err)
	}
	if want := "x,y\n\"p,q\",\"\"\n"; out.String() != want {
		t.Fatalf("quoting: got %q, want %q", out.String(), want)
	}
}

func TestFieldsRewriteErrors(t *testing.T) {
	stop := errors.New("line 3: bad point")
	calls := 0
	f := Fields{Columns: []string{"x", "y"}, Replace: func([]int, [][]byte) ([]string, error) {
		calls++
		if calls == 2 {
			return nil, stop
		}
		return []string{"0", "0"}, nil
	}}
	if err := f.Rewrite(strings.NewReader("x,y\n1,2\n3,4\n5,6\n"), &bytes.Buffer{}); !errors.Is(err, stop) || calls != 2 {
		t.Errorf("Replace's error: got %v after %d calls", err, calls)
	}
	cases := []struct {
		f    Fields
		in   string
		want string
	}{
		{Fields{Columns: []string{"x", "lon"}, Replace: f.Replace}, "x,y\n1,2\n", `no column "lon" in the header x,y`},
		{Fields{Columns: []string{"x"}, Replace: f.Replace}, "x,x\n1,2\n", `column "x" appears twice`},
		{Fields{Columns: []string{"x"}, Drop: []string{"x"}, Replace: f.Replace}, "x,y\n1,2\n", `column "x" is the one privatized`},
		{Fields{Columns: []string{"x"}, Drop: []string{"z"}, Replace: f.Replace}, "x,y\n1,2\n", `no column "z" in the header x,y`},
		{Fields{Columns: []string{"x"}}, "x\n1\n", "needs a Replace function"},
		{Fields{Columns: []string{"x"}, Replace: f.Replace}, "", "the CSV input is empty"},
	}
	for _, c := range cases {
		err := c.f.Rewrite(strings.NewReader(c.in), &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.in, err, c.want)
		}
	}
}
