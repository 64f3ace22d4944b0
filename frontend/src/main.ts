import { mount } from 'svelte';
import './app.css';
import App from './App.svelte';
import { connect } from './lib/api';

// In serve mode, take the token out of the address bar before anything else.
connect();

const app = mount(App, { target: document.getElementById('app')! });

export default app;
