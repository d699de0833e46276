//! `#[derive(Decode)]`: chat-shell-protocol's wire types decoded from a parsed
//! `serde_json::Value` by straight-line code (a map lookup and a call per field), instead of
//! serde's per-type visitors instantiated for every deserializer. It reads the `#[serde(…)]`
//! attributes the types already carry for `Serialize`, so both directions share one
//! spelling of every field, and it implements `serde::Deserialize` through the decoder, so
//! a serde type may hold a decoded one. The code it writes names
//! `::chat_shell_protocol::decode`, so a deriving crate depends on chat-shell-protocol.
//!
//! Supported, with serde's meaning: on containers `rename_all` ("snake_case",
//! "camelCase", "lowercase") and `transparent`; on fields `rename`, `alias`, `default`,
//! `default = "path"`, `flatten` (the field decodes from the whole object) and
//! `deserialize_with = "path"`, where `path` is a decoder, `fn(&Value) -> Result<T, Error>`
//! (chat_shell_protocol's tagged::null_as_default reads `null` as absent). A missing `Option` is `None`;
//! another missing field without a default is an error. Enums: unit variants from a
//! string; named-field variants with `tag = "…"` (the tag a field of the same object) or
//! `untagged` (the first variant that decodes). Anything else is a compile error: keep
//! serde's derive for it.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::quote;
use syn::{
    parse_macro_input, Attribute, Data, DeriveInput, Fields, GenericParam, Ident, LitStr, Path,
    Type,
};

#[proc_macro_derive(Decode, attributes(serde))]
pub fn derive_decode(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

#[derive(Default)]
struct Attrs {
    rename: Option<String>,
    rename_all: Option<String>,
    aliases: Vec<String>,
    default: bool,
    default_path: Option<Path>,
    with: Option<Path>,
    flatten: bool,
    transparent: bool,
    tag: Option<String>,
    untagged: bool,
}

fn attrs(list: &[Attribute]) -> syn::Result<Attrs> {
    let mut out = Attrs::default();
    for attr in list.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(Ident::to_string)
                .unwrap_or_default();
            let string = |meta: &syn::meta::ParseNestedMeta| -> syn::Result<String> {
                Ok(meta.value()?.parse::<LitStr>()?.value())
            };
            match key.as_str() {
                "rename" => out.rename = Some(string(&meta)?),
                "rename_all" => out.rename_all = Some(string(&meta)?),
                "alias" => out.aliases.push(string(&meta)?),
                "default" => {
                    out.default = true;
                    if meta.input.peek(syn::Token![=]) {
                        out.default_path = Some(syn::parse_str(&string(&meta)?)?);
                    }
                }
                "deserialize_with" => out.with = Some(syn::parse_str(&string(&meta)?)?),
                "flatten" => out.flatten = true,
                "transparent" => out.transparent = true,
                "tag" => out.tag = Some(string(&meta)?),
                "untagged" => out.untagged = true,
                // Serialize-only: nothing to decode.
                "skip_serializing_if" | "serialize_with" => {
                    string(&meta)?;
                }
                _ => return Err(meta.error("derive(Decode) does not support this serde attribute")),
            }
            Ok(())
        })?;
    }
    Ok(out)
}

fn renamed(name: &str, rule: Option<&str>) -> syn::Result<String> {
    let name = name.strip_prefix("r#").unwrap_or(name);
    Ok(match rule {
        None => name.to_owned(),
        Some("lowercase") => name.to_lowercase(),
        Some("snake_case") => {
            // Variant names are CamelCase; field names are already snake_case.
            let mut out = String::new();
            for (i, c) in name.chars().enumerate() {
                if c.is_uppercase() {
                    if i > 0 {
                        out.push('_');
                    }
                    out.extend(c.to_lowercase());
                } else {
                    out.push(c);
                }
            }
            out
        }
        Some("camelCase") => {
            let mut out = String::new();
            let mut upper = false;
            for (i, c) in name.chars().enumerate() {
                if c == '_' {
                    upper = true;
                } else if upper {
                    out.extend(c.to_uppercase());
                    upper = false;
                } else if i == 0 {
                    out.extend(c.to_lowercase());
                } else {
                    out.push(c);
                }
            }
            out
        }
        Some(other) => {
            return Err(syn::Error::new(
                Span::call_site(),
                format!("derive(Decode): rename_all = {other:?} is not supported"),
            ))
        }
    })
}

/// A variant's name on the wire: its `rename`, else its name under the enum's `rename_all`.
fn variant_key(variant: &syn::Variant, container: &Attrs) -> syn::Result<String> {
    match attrs(&variant.attrs)?.rename {
        Some(name) => Ok(name),
        None => renamed(&variant.ident.to_string(), container.rename_all.as_deref()),
    }
}

fn is_option(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.ident == "Option"))
}

fn expand(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    let container = attrs(&input.attrs)?;
    let d = quote!(::chat_shell_protocol::decode);
    let body = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(fields) if !container.transparent => {
                let ctor = quote!(Self);
                named_fields(fields, container.rename_all.as_deref(), &ctor)?
            }
            Fields::Named(fields) if fields.named.len() == 1 => {
                let ident = fields.named[0].ident.as_ref().expect("named field");
                quote!(Ok(Self { #ident: #d::Decode::decode(value)? }))
            }
            Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
                quote!(Ok(Self(#d::Decode::decode(value)?)))
            }
            _ => {
                return Err(syn::Error::new_spanned(
                    name,
                    "derive(Decode): unsupported struct shape",
                ))
            }
        },
        Data::Enum(data) if container.tag.is_some() || container.untagged => {
            let mut arms = Vec::new();
            for variant in &data.variants {
                let Fields::Named(fields) = &variant.fields else {
                    return Err(syn::Error::new_spanned(
                        variant,
                        "derive(Decode): tagged variants need named fields",
                    ));
                };
                let ident = &variant.ident;
                let body = named_fields(fields, None, &quote!(Self::#ident))?;
                arms.push((variant_key(variant, &container)?, body));
            }
            if let Some(tag) = &container.tag {
                let arms = arms.iter().map(|(key, body)| quote!(#key => { #body }));
                quote! {
                    let tag = match #d::object(value)?.get(#tag) {
                        Some(v) => #d::string(v).map_err(|e| e.at(#tag))?,
                        None => return Err(#d::Error::missing(#tag)),
                    };
                    match tag {
                        #(#arms)*
                        other => Err(#d::Error::unknown(other)),
                    }
                }
            } else {
                // The first variant that decodes, as serde's `untagged`.
                let tries = arms.iter().map(|(_, body)| {
                    quote!(if let Ok(v) = (|| -> ::core::result::Result<Self, #d::Error> { #body })() {
                        return Ok(v);
                    })
                });
                let message = format!("data did not match any variant of untagged enum {name}");
                quote! {
                    #(#tries)*
                    Err(#d::Error::new(#message))
                }
            }
        }
        Data::Enum(data) => {
            let mut arms = Vec::new();
            for variant in &data.variants {
                if !matches!(variant.fields, Fields::Unit) {
                    return Err(syn::Error::new_spanned(
                        variant,
                        "derive(Decode): only unit variants (keep serde's derive for this enum)",
                    ));
                }
                let key = variant_key(variant, &container)?;
                let ident = &variant.ident;
                arms.push(quote!(#key => Ok(Self::#ident)));
            }
            quote! {
                match #d::string(value)? {
                    #(#arms,)*
                    other => Err(#d::Error::unknown(other)),
                }
            }
        }
        Data::Union(_) => return Err(syn::Error::new_spanned(name, "derive(Decode): unions")),
    };

    let mut generics = input.generics.clone();
    for param in &mut generics.params {
        if let GenericParam::Type(t) = param {
            t.bounds.push(syn::parse_quote!(#d::Decode));
        }
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let mut de_generics = generics.clone();
    de_generics.params.insert(0, syn::parse_quote!('de));
    let (de_impl_generics, _, _) = de_generics.split_for_impl();
    Ok(quote! {
        impl #impl_generics #d::Decode for #name #ty_generics #where_clause {
            fn decode(value: &::serde_json::Value) -> ::core::result::Result<Self, #d::Error> {
                #body
            }
        }
        impl #de_impl_generics ::serde::Deserialize<'de> for #name #ty_generics #where_clause {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                #d::deserialize(d)
            }
        }
    })
}

/// `{ let map = object(value)?; Ok(ctor { field: …, … }) }` for named fields.
fn named_fields(
    fields: &syn::FieldsNamed,
    rename_all: Option<&str>,
    ctor: &Tokens,
) -> syn::Result<Tokens> {
    let d = quote!(::chat_shell_protocol::decode);
    let mut inits = Vec::new();
    for field in &fields.named {
        let ident = field.ident.as_ref().expect("named field");
        let a = attrs(&field.attrs)?;
        if a.flatten {
            inits.push(quote!(#ident: #d::Decode::decode(value)?));
            continue;
        }
        let key = match &a.rename {
            Some(r) => r.clone(),
            None => renamed(&ident.to_string(), rename_all)?,
        };
        let mut lookup = quote!(map.get(#key));
        for alias in &a.aliases {
            lookup = quote!(#lookup.or_else(|| map.get(#alias)));
        }
        let decode = match &a.with {
            Some(path) => quote!(#path(v)),
            None => quote!(#d::Decode::decode(v)),
        };
        let missing = if let Some(path) = &a.default_path {
            quote!(#path())
        } else if a.default {
            quote!(::core::default::Default::default())
        } else if is_option(&field.ty) && a.with.is_none() {
            quote!(::core::option::Option::None)
        } else {
            quote!(return Err(#d::Error::missing(#key)))
        };
        inits.push(quote! {
            #ident: match #lookup {
                Some(v) => #decode.map_err(|e| e.at(#key))?,
                _ => #missing,
            }
        });
    }
    Ok(quote! {
        let map = #d::object(value)?;
        Ok(#ctor { #(#inits),* })
    })
}
