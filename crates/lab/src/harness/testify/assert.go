// Package assert: the part of github.com/stretchr/testify/assert that the
// HumanEval-X Go tests use (New, Assertions.Equal, Equal, ObjectsAreEqual), written
// for Espalier's offline evaluation: the real module cannot be fetched here. Equal
// follows testify v1.8: reflect.DeepEqual, []byte compared by bytes.Equal, and
// functions refused as arguments; a failure reports both values through t.Errorf.
package assert

import (
	"bytes"
	"fmt"
	"reflect"
)

// TestingT is what a *testing.T offers to assertions.
type TestingT interface {
	Errorf(format string, args ...interface{})
}

type tHelper interface {
	Helper()
}

// Assertions calls the assertion functions on one TestingT.
type Assertions struct {
	t TestingT
}

// New makes Assertions for t.
func New(t TestingT) *Assertions {
	return &Assertions{t: t}
}

// Equal asserts that two objects are equal.
func (a *Assertions) Equal(expected, actual interface{}, msgAndArgs ...interface{}) bool {
	if h, ok := a.t.(tHelper); ok {
		h.Helper()
	}
	return Equal(a.t, expected, actual, msgAndArgs...)
}

// ObjectsAreEqual reports whether two objects are equal as testify decides it.
func ObjectsAreEqual(expected, actual interface{}) bool {
	if expected == nil || actual == nil {
		return expected == actual
	}
	exp, ok := expected.([]byte)
	if !ok {
		return reflect.DeepEqual(expected, actual)
	}
	act, ok := actual.([]byte)
	if !ok {
		return false
	}
	if exp == nil || act == nil {
		return exp == nil && act == nil
	}
	return bytes.Equal(exp, act)
}

func isFunction(arg interface{}) bool {
	return arg != nil && reflect.TypeOf(arg).Kind() == reflect.Func
}

// Equal asserts that two objects are equal.
func Equal(t TestingT, expected, actual interface{}, msgAndArgs ...interface{}) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if isFunction(expected) || isFunction(actual) {
		t.Errorf("Invalid operation: %#v == %#v (cannot take func type as argument)%s", expected, actual, message(msgAndArgs))
		return false
	}
	if !ObjectsAreEqual(expected, actual) {
		t.Errorf("Not equal:\nexpected: %#v\nactual  : %#v%s", expected, actual, message(msgAndArgs))
		return false
	}
	return true
}

func message(msgAndArgs []interface{}) string {
	switch len(msgAndArgs) {
	case 0:
		return ""
	case 1:
		return "\n" + fmt.Sprint(msgAndArgs[0])
	default:
		if f, ok := msgAndArgs[0].(string); ok {
			return "\n" + fmt.Sprintf(f, msgAndArgs[1:]...)
		}
		return "\n" + fmt.Sprint(msgAndArgs...)
	}
}
