//! The CPUs: who runs, who waits in the run queue, and each clock.

use std::rc::Rc;

use yew::prelude::*;

use crate::live::describe::fmt_ns;
use crate::live::snapshot::CpuView;

/// Props of [`cpus`].
#[derive(Properties, PartialEq)]
pub struct CpuProps {
    /// The CPUs.
    pub cpus: Rc<Vec<CpuView>>,
}

/// The CPUs.
pub fn cpus(props: &CpuProps) -> Html {
    html! {
        <section class="panel cpu-panel">
            <h4>{ "CPUs" }</h4>
            <ul class="cpus">
                { for props.cpus.iter().map(|c| html! {
                    <li data-testid={format!("cpu-{}", c.idx)} class={classes!("cpu", c.current.is_none().then_some("idle"))}>
                        <strong>{ format!("CPU {}", c.idx) }</strong>
                        { format!(" runs {}", c.current.as_deref().unwrap_or("nothing (idle)")) }
                        { if c.runq.is_empty() { String::new() } else { format!(" · run queue: {}", c.runq.join(" ")) } }
                        <span class="clock">{ format!(" · clock {}", fmt_ns(c.clock)) }</span>
                    </li>
                }) }
            </ul>
        </section>
    }
}
