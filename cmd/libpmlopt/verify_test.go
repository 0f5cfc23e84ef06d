package main

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// solvedCertificate solves the counting query at ε = 1.3 and returns its
// certificate's JSON and the mechanism, flat.
func solvedCertificate(t *testing.T, in input) (map[string]any, []float64) {
	t.Helper()
	d, r := call(t, context.Background(), "solve", `{"epsilon":1.3}`, in)
	require.Empty(t, d.Error)
	c, ok := d.Result["certificate"].(map[string]any)
	require.True(t, ok, "solve gives a certificate")
	var flat []float64
	for _, row := range r.matrices[0] {
		flat = append(flat, row...)
	}
	return c, flat
}

func verifyCall(t *testing.T, c map[string]any, in input) decoded {
	t.Helper()
	b, err := json.Marshal(map[string]any{"certificate": c})
	require.NoError(t, err)
	d, _ := call(t, context.Background(), "verify", string(b), in)
	return d
}

func TestVerifyAcceptsSolvesCertificate(t *testing.T) {
	in := counting(t)
	c, m := solvedCertificate(t, in)
	// §IV-A: ε = 1.3 reaches order 6, with the least ε log 3.5.
	assert.Equal(t, 6.0, c["worst_case_order"])
	lower := c["lower"].(map[string]any)
	assert.InDelta(t, math.Log(3.5), lower["optimal_epsilon_lower"].(float64), 1e-9)
	in.Mechanism = m
	d := verifyCall(t, c, in)
	require.Empty(t, d.Error)
	assert.Equal(t, true, d.Result["verified"], d.Result)
	names := map[string]bool{}
	for _, cl := range d.Result["claims"].([]any) {
		names[cl.(map[string]any)["name"].(string)] = true
	}
	for _, want := range []string{"shape", "prior", "rows", "level", "budget", "lower end"} {
		assert.True(t, names[want], "claim %q checked", want)
	}
}

func TestVerifyRefusesTamperedCertificate(t *testing.T) {
	in := counting(t)
	c, m := solvedCertificate(t, in)
	in.Mechanism = m
	// A lower end above the mechanism's own level can not be proven.
	c["lower"].(map[string]any)["optimal_epsilon_lower"] = 1.26
	d := verifyCall(t, c, in)
	require.Empty(t, d.Error)
	assert.Equal(t, false, d.Result["verified"])
	failed := ""
	for _, cl := range d.Result["claims"].([]any) {
		if !cl.(map[string]any)["ok"].(bool) {
			failed = cl.(map[string]any)["name"].(string)
		}
	}
	assert.Equal(t, "lower end", failed)
}

func TestVerifyErrors(t *testing.T) {
	in := counting(t)
	c, _ := solvedCertificate(t, in)
	// The certificate of a solve has no mechanism of its own.
	d := verifyCall(t, c, in)
	assert.Contains(t, d.Error, "mechanism: the certificate has none of its own")
	d, _ = call(t, context.Background(), "verify", `{}`, in)
	assert.Contains(t, d.Error, "certificate: give a certificate")
	d, _ = call(t, context.Background(), "verify", `{"certificate":{"epsilon":"x"}}`, in)
	assert.Contains(t, d.Error, "certificate: ")
	d, _ = call(t, context.Background(), "verify", `{"path":`+strconv.Quote("../../testdata/counting-query.yaml")+`}`, input{})
	assert.Contains(t, d.Error, "no certificate at its top level")
	d = verifyCall(t, c, input{})
	assert.Contains(t, d.Error, "prior: give the problem")
}

func TestCurveCertificatesOnRequest(t *testing.T) {
	in := counting(t)
	d, _ := call(t, context.Background(), "curve", `{}`, in)
	require.Empty(t, d.Error)
	for _, pt := range d.Result["points"].([]any) {
		assert.NotContains(t, pt.(map[string]any), "certificate")
	}
	d, _ = call(t, context.Background(), "curve", `{"certificates":true}`, in)
	require.Empty(t, d.Error)
	pts := d.Result["points"].([]any)
	require.NotEmpty(t, pts)
	for k, pt := range pts {
		c := pt.(map[string]any)["certificate"].(map[string]any)
		// The mechanism of point h reaches order h at least.
		assert.GreaterOrEqual(t, c["worst_case_order"].(float64), pt.(map[string]any)["h"].(float64), "point %d", k)
		v := verifyCall(t, c, in) // the point's certificate holds its mechanism
		require.Empty(t, v.Error)
		assert.Equal(t, true, v.Result["verified"], "point %d", k)
	}
}
