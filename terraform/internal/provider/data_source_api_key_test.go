package provider

import (
	"context"
	"testing"

	datasourceschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	resourceschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// The data source shows each attribute it shares with the resource as the resource defines it:
// the same type and description, nested attributes too, read-only; key_id is its one argument.
func TestAPIKeyDataSourceSchemaIsTheResourceAttributesReadOnly(t *testing.T) {
	resource := apiKeyResourceSchema()
	data := apiKeyDataSourceSchema()
	if diags := data.ValidateImplementation(context.Background()); diags.HasError() {
		t.Fatalf("the data source schema is invalid: %v", diags)
	}
	for _, name := range keyAttributesRead {
		expectReadOnlyVariant(t, name, resource.Attributes[name], data.Attributes[name])
	}
	if len(data.Attributes) != len(keyAttributesRead)+5 {
		t.Errorf("the data source has %d attributes, want the %d it reads from the resource and its own 5", len(data.Attributes), len(keyAttributesRead))
	}
	for name, attribute := range data.Attributes {
		if name == "key_id" {
			if !attribute.IsRequired() || attribute.IsComputed() {
				t.Errorf("key_id must be the data source's one required argument")
			}
			continue
		}
		if !attribute.IsComputed() || attribute.IsOptional() || attribute.IsRequired() {
			t.Errorf("%s must be computed only", name)
		}
	}
}

func expectReadOnlyVariant(t *testing.T, path string, resource resourceschema.Attribute, data datasourceschema.Attribute) {
	t.Helper()
	if resource == nil || data == nil {
		t.Errorf("%s: in the resource %t, in the data source %t; want both", path, resource != nil, data != nil)
		return
	}
	if !resource.GetType().Equal(data.GetType()) {
		t.Errorf("%s: the data source's type %s differs from the resource's %s", path, data.GetType(), resource.GetType())
	}
	if resource.GetDescription() == "" || data.GetDescription() != resource.GetDescription() {
		t.Errorf("%s: the data source's description %q is not the resource's %q", path, data.GetDescription(), resource.GetDescription())
	}
	if !data.IsComputed() || data.IsOptional() || data.IsRequired() || data.IsSensitive() != resource.IsSensitive() {
		t.Errorf("%s: want computed only, sensitive as the resource's", path)
	}
	nested, ok := resource.(resourceschema.SingleNestedAttribute)
	if !ok {
		return
	}
	dataNested, ok := data.(datasourceschema.SingleNestedAttribute)
	if !ok || len(dataNested.Attributes) != len(nested.Attributes) {
		t.Errorf("%s: want the resource's %d nested attributes", path, len(nested.Attributes))
		return
	}
	for name, inner := range nested.Attributes {
		expectReadOnlyVariant(t, path+"."+name, inner, dataNested.Attributes[name])
	}
}
