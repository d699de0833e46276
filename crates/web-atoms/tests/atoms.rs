// The macros as html5ever uses them, from another crate (a macro a build script generates
// cannot be named by path inside its own crate).

use web_atoms::{local_name, namespace_prefix, ns, LocalName, Namespace};

#[test]
fn atoms_and_namespaces() {
    let div: LocalName = "div".into();
    assert_eq!(div, local_name!("div"), "an inline atom");
    let long: LocalName = "annotation-xml".into();
    assert_eq!(long, local_name!("annotation-xml"), "a static atom");
    let foreign: Namespace = "http://www.w3.org/2000/svg".into();
    assert_eq!(foreign, ns!(svg));
    assert_eq!(&*ns!(html), "http://www.w3.org/1999/xhtml");
    assert_eq!(&*ns!(mathml), "http://www.w3.org/1998/Math/MathML");
    assert_eq!(&*ns!(), "");
    assert_eq!(&*ns!(*), "*");
    assert_eq!(&*ns!(xml), "http://www.w3.org/XML/1998/namespace");
    assert_eq!(&*ns!(xmlns), "http://www.w3.org/2000/xmlns/");
    assert_eq!(&*ns!(xlink), "http://www.w3.org/1999/xlink");
    assert_eq!(&*ns!(svg), "http://www.w3.org/2000/svg");
    assert_eq!(&*namespace_prefix!("xlink"), "xlink");
}
