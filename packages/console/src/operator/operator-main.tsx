import { render } from 'preact';
import { OperatorApp } from './operator-app.js';
import '../styles.css';

render(<OperatorApp />, document.getElementById('operator')!);
