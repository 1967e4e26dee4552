package store_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/lorekeep/lore/store"
)

// Every field of Content has a field of Record of the same name, type
// and JSON key, and ContentOf and Record carry each one both ways: a
// field added to Content without Record, or left out of a conversion,
// fails here.
func TestContentMatchesRecord(t *testing.T) {
	ct, rt := reflect.TypeFor[store.Content](), reflect.TypeFor[store.Record]()
	var c store.Content
	cv := reflect.ValueOf(&c).Elem()
	for i := range ct.NumField() {
		f := ct.Field(i)
		rf, ok := rt.FieldByName(f.Name)
		if !ok || rf.Type != f.Type {
			t.Fatalf("Content.%s (%s) has no Record field of that name and type", f.Name, f.Type)
		}
		ck, rk := f.Tag.Get("json"), rf.Tag.Get("json")
		if base(ck) != base(rk) {
			t.Errorf("Content.%s is %q in JSON, Record.%s %q", f.Name, ck, f.Name, rk)
		}
		setAny(t, cv.Field(i), f.Name)
	}
	if c.IsZero() {
		t.Fatal("every field set, and IsZero says none is")
	}
	if back := store.ContentOf(c.Record()); !reflect.DeepEqual(back, c) {
		t.Errorf("ContentOf(Record()) = %+v; want %+v", back, c)
	}
	if !(store.Content{}).IsZero() {
		t.Error("the zero Content is not IsZero")
	}
	if keys := store.ContentKeys(); len(keys) != ct.NumField() || keys[0] != "ns" || !slices.Contains(keys, "vector") {
		t.Errorf("ContentKeys = %q", keys)
	}
}

func base(tag string) string {
	for i := range tag {
		if tag[i] == ',' {
			return tag[:i]
		}
	}
	return tag
}

// setAny sets v, a Content field, to a value that is not zero.
func setAny(t *testing.T, v reflect.Value, name string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x-" + name)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int64:
		v.SetInt(7)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		setAny(t, s.Index(0), name)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		m.SetMapIndex(reflect.ValueOf("k"), reflect.ValueOf("v-"+name))
		v.Set(m)
	case reflect.Float32:
		v.SetFloat(0.5)
	default:
		t.Fatalf("Content.%s: a %s, which this test does not know how to fill", name, v.Kind())
	}
}
