//! The home page: what herdlab is, and the lessons that exist.

use yew::prelude::*;

use crate::lesson::catalog::LESSONS;

/// The home page.
pub fn home() -> Html {
    html! {
        <article class="home prose">
            <h1>{ "herdlab" }</h1>
            <p class="intro">
                { "How does a server put its threads to sleep, and who wakes up when work arrives? \
                   herdlab answers with simulations you can step through one atomic action at a time: \
                   the kernel's wait queues, the wake walk and its budget, futexes and condition \
                   variables, nginx's shared-memory lock and its rivals, each line of pseudocode \
                   highlighted where each thread stands, with every wakeup, wasted wakeup, spin and \
                   context switch counted. Break the code on purpose and watch a wakeup get lost, let \
                   the model checker find the interleaving that breaks it, then measure the same thing \
                   on your own machine." }
            </p>
            <h2>{ "Lessons" }</h2>
            <p class="order-note">{ "In the suggested order: each lesson builds on the ones before it." }</p>
            <ol class="lesson-list" data-testid="lesson-order">
                { for LESSONS.iter().enumerate().map(|(i, l)| html! {
                    <li data-order={(i + 1).to_string()}>
                        <span class="lesson-number" aria-hidden="true">{ i + 1 }</span>
                        <div>
                            <a data-testid={format!("lesson-link-{}", l.slug)} href={format!("#/lesson/{}", l.slug)}>
                                { l.title }
                            </a>
                            <p>{ l.summary }</p>
                        </div>
                    </li>
                }) }
            </ol>
            <p class="aside">{ "Words you meet in the lessons are explained in the " }
                <a href="#/glossary" data-testid="home-glossary-link">{ "glossary" }</a>{ "." }</p>
            <p class="aside">
                { "Curious how fast the simulator runs here? " }
                <a href="#/bench" data-testid="bench-link">{ "Measure it in your browser" }</a>{ ". " }
                { "Or run " }
                <a href="#/check?mechanism=locks&lock=shmtx&variant=correct&threads=3&rounds=2&spin=2048"
                    data-testid="check-page-link">{ "the model checker" }</a>
                { " on nginx's lock with three threads." }
            </p>
        </article>
    }
}
